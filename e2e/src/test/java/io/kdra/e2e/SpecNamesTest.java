package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.framework.SpecNames;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every spec's full name and labels are those of an upstream spec in {@code upstream-specs.tsv} (the inventory of
 * the upstream specs: file, group, name, labels, uncertain, needs), so that upstream focus and label filters select
 * the same specs.
 */
class SpecNamesTest {

    private static final List<Class<?>> SPEC_CLASSES = List.of(CrudSpecs.class, KubeletSpecs.class,
            KubeletPerNodeSpecs.class, KubeletDriverUpdateSpecs.class,
            // groups M, N, T, U, X, Y, Z, AA, AB, AC of dra.go, health.go, compatibility_groups.go
            KubeletDeviceTaintsSpecs.class, KubeletDeviceTaintsNoExecuteSpecs.class, KubeletMultipleDriversSpecs.class,
            KubeletHealthMessageSpecs.class, HealthSpecs.class, KubeletReconcilePoolSpecs.class, DeviceMetadataSpecs.class,
            DeviceMetadataMultipleDriversSpecs.class, KubeletPodGroupSpecs.class, KubeletDeviceTaintsPodGroupSpecs.class,
            KubeletOptionalNodeOperationsSpecs.class, CompatibilityGroupsSpecs.class);

    @Test
    void everySpecHasAnUpstreamNameAndLabels() throws IOException {
        Map<String, Set<String>> upstream = upstreamLabels();
        int specs = 0;
        for (Class<?> specClass : SPEC_CLASSES) {
            for (Method method : specClass.getDeclaredMethods()) {
                if (!method.isAnnotationPresent(Test.class)) {
                    continue;
                }
                specs++;
                String name = SpecNames.fullName(specClass, method);
                assertThat(upstream).as("upstream spec names").containsKey(name);
                assertThat(SpecNames.labels(specClass, method)).as("labels of %s", name)
                        .containsExactlyInAnyOrderElementsOf(upstream.get(name));
            }
        }
        assertThat(specs).as("specs checked").isEqualTo(portedRows().size());
    }

    @Test
    void portedGroupsAreComplete() throws IOException {
        List<String> ported = SPEC_CLASSES.stream().flatMap(type -> Arrays.stream(type.getDeclaredMethods())
                .filter(method -> method.isAnnotationPresent(Test.class))
                .map(method -> SpecNames.fullName(type, method))).toList();
        assertThat(ported).containsExactlyInAnyOrderElementsOf(portedRows());
    }

    /** The upstream names of the groups ported so far (TSV columns file and group). */
    private static List<String> portedRows() throws IOException {
        Set<String> draGo = Set.of("A", "B", "C", "D", "M", "N", "T", "U", "X", "Y", "Z", "AA", "AB", "AC");
        return rows().stream()
                .filter(row -> row[0].equals("dra.go") && draGo.contains(row[1]) || row[0].equals("health.go")
                        || row[0].equals("compatibility_groups.go"))
                .map(row -> row[2]).distinct().toList();
    }

    private static Map<String, Set<String>> upstreamLabels() throws IOException {
        Map<String, Set<String>> labels = new LinkedHashMap<>();
        for (String[] row : rows()) {
            // BetaOffByDefault is a label without a text tag
            labels.put(row[2], Arrays.stream(row[3].split(",")).filter(label -> !label.equals("BetaOffByDefault"))
                    .collect(Collectors.toSet()));
        }
        return labels;
    }

    private static List<String[]> rows() throws IOException {
        try (InputStream tsv = SpecNamesTest.class.getResourceAsStream("/upstream-specs.tsv")) {
            return new String(tsv.readAllBytes(), StandardCharsets.UTF_8).lines().skip(1)
                    .map(line -> line.split("\t", -1)).toList();
        }
    }
}
