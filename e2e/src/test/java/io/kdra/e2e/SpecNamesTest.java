package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.framework.SpecNames;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
            KubeletPerNodeSpecs.class, KubeletDriverUpdateSpecs.class, ControlPlaneSingleNodeSpecs.class,
            KubeletSingleNodeSpecs.class, KubeletMultipleClaimsSpecs.class, ControlPlaneMultiNodeSpecs.class,
            KubeletMultiNodeSpecs.class, PrioritizedListSpecs.class, ConsumableCapacitySpecs.class,
            V1beta1ApiSpecs.class, V1beta2ApiSpecs.class, PartitionableDevicesSpecs.class);

    private static final Set<String> PORTED_GROUPS = Set.of("A", "B", "C", "D", "E1", "E2", "F", "G1", "G2", "H",
            "I", "J", "K", "L");

    @Test
    void everySpecHasAnUpstreamNameAndLabels() throws IOException {
        Map<String, Set<String>> upstream = upstreamLabels();
        int specs = 0;
        for (Class<?> specClass : SPEC_CLASSES) {
            for (Method method : specMethods(specClass)) {
                specs++;
                String name = SpecNames.fullName(specClass, method);
                assertThat(upstream).as("upstream spec names").containsKey(name);
                assertThat(SpecNames.labels(specClass, method)).as("labels of %s", name)
                        .containsExactlyInAnyOrderElementsOf(upstream.get(name));
            }
        }
        assertThat(specs).as("specs checked").isEqualTo(portedGroupSpecs().size());
    }

    @Test
    void portedGroupsOfDraGoAreComplete() throws IOException {
        List<String> ported = SPEC_CLASSES.stream().flatMap(type -> specMethods(type).stream()
                .map(method -> SpecNames.fullName(type, method))).toList();
        assertThat(ported).containsExactlyInAnyOrderElementsOf(portedGroupSpecs());
    }

    private static List<String> portedGroupSpecs() throws IOException {
        return rows().stream().filter(row -> row[0].equals("dra.go") && PORTED_GROUPS.contains(row[1]))
                .map(row -> row[2]).distinct().toList();
    }

    /** The class's specs, with those it inherits from the base class of groups that share their bodies. */
    private static List<Method> specMethods(Class<?> specClass) {
        List<Method> specs = new ArrayList<>();
        for (Class<?> type = specClass; type != Object.class; type = type.getSuperclass()) {
            Arrays.stream(type.getDeclaredMethods()).filter(method -> method.isAnnotationPresent(Test.class))
                    .forEach(specs::add);
        }
        return specs;
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
