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
            KubeletPerNodeSpecs.class, KubeletDriverUpdateSpecs.class, ResourceSliceControllerSpecs.class,
            ControlPlaneSpecs.class, ControlPlanePerNodeSpecs.class, PoolStatusSpecs.class,
            ControlPlaneViewsSpecs.TypedViewSpecs.class, ControlPlaneViewsSpecs.UntypedViewSpecs.class,
            ControlPlaneViewsSpecs.ShareableViewSpecs.class, PoolStatusPerNodeSpecs.class);

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
        assertThat(specs).as("specs checked").isEqualTo(44);
    }

    @Test
    void apiAndControlPlaneGroupsOfDraGoArePortedCompletely() throws IOException {
        Set<String> groups = Set.of("Q", "R", "S", "V", "W", "AD");
        List<String> ported = SPEC_CLASSES.stream().flatMap(type -> Arrays.stream(type.getDeclaredMethods())
                .filter(method -> method.isAnnotationPresent(Test.class))
                .map(method -> SpecNames.fullName(type, method))).toList();
        List<String> upstream = rows().stream().filter(row -> row[0].equals("dra.go") && groups.contains(row[1]))
                .map(row -> row[2]).distinct().toList();
        assertThat(ported).containsAll(upstream);
    }

    @Test
    void groupsAToDOfDraGoArePortedCompletely() throws IOException {
        List<String> ported = SPEC_CLASSES.stream().flatMap(type -> Arrays.stream(type.getDeclaredMethods())
                .filter(method -> method.isAnnotationPresent(Test.class))
                .map(method -> SpecNames.fullName(type, method))).toList();
        List<String> groupsAToD = rows().stream()
                .filter(row -> row[0].equals("dra.go") && Set.of("A", "B", "C", "D").contains(row[1]))
                .map(row -> row[2]).distinct().toList();
        assertThat(ported).containsAll(groupsAToD);
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
