package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.framework.SpecNames;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * dra.go groups O and P (DRAExtendedResource) are ported completely, with upstream's names and labels. (Once the
 * groups' branches are merged, these classes belong in {@code SpecNamesTest}'s list.)
 */
class ExtendedResourceSpecNamesTest {

    private static final List<Class<?>> SPEC_CLASSES = List.of(ExtendedResourceSpecs.class,
            ExtendedResourceDevicePluginSpecs.class);

    @Test
    void groupsOAndPArePortedWithUpstreamNamesAndLabels() throws IOException {
        List<String[]> rows = rows().stream().filter(row -> row[0].equals("dra.go")
                && Set.of("O", "P").contains(row[1])).toList();
        List<String> ported = new ArrayList<>();
        for (Class<?> specClass : SPEC_CLASSES) {
            for (Method method : specClass.getDeclaredMethods()) {
                if (!method.isAnnotationPresent(Test.class)) {
                    continue;
                }
                String name = SpecNames.fullName(specClass, method);
                ported.add(name);
                String[] row = rows.stream().filter(r -> r[2].equals(name)).findFirst().orElse(null);
                assertThat(row).as("upstream spec %s", name).isNotNull();
                assertThat(SpecNames.labels(specClass, method)).as("labels of %s", name)
                        .containsExactlyInAnyOrderElementsOf(Arrays.stream(row[3].split(","))
                                .collect(Collectors.toSet()));
            }
        }
        assertThat(ported).containsExactlyInAnyOrderElementsOf(rows.stream().map(row -> row[2]).toList());
    }

    private static List<String[]> rows() throws IOException {
        try (InputStream tsv = ExtendedResourceSpecNamesTest.class.getResourceAsStream("/upstream-specs.tsv")) {
            return new String(tsv.readAllBytes(), StandardCharsets.UTF_8).lines().skip(1)
                    .map(line -> line.split("\t", -1)).toList();
        }
    }
}
