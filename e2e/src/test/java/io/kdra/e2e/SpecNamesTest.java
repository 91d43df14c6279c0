package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.framework.run.PlannedSpec;
import io.kdra.framework.run.SpecSelection;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The suite is upstream's: every spec's full name and labels are those of an upstream spec in
 * {@code upstream-specs.tsv} (the inventory of the upstream specs: file, group, name, labels, uncertain, needs), so that
 * upstream focus and label filters select the same specs; and every spec of the files kdra ports is there, passing or
 * skipped with its reason, none silently missing.
 */
class SpecNamesTest {

    /** The upstream files whose specs the suite holds, every one of them. */
    private static final Set<String> PORTED_FILES = Set.of("dra.go", "health.go", "compatibility_groups.go",
            "e2e_node/dra_test.go", "dra_node_allocatable_resources.go", "versionskew.go");

    private final List<PlannedSpec> suite = UpstreamSuite.runner().plan(SpecSelection.ALL);

    @Test
    void everySpecHasAnUpstreamNameAndLabels() throws IOException {
        Map<String, Set<String>> upstream = upstreamLabels();
        for (PlannedSpec spec : suite) {
            assertThat(upstream).as("upstream spec names").containsKey(spec.name());
            assertThat(spec.labels()).as("labels of %s", spec.name())
                    .containsExactlyInAnyOrderElementsOf(upstream.get(spec.name()));
        }
    }

    @Test
    void theSuiteHoldsEveryUpstreamSpecOfTheInventory() throws IOException {
        assertThat(rows().stream().map(row -> row[0]).distinct()).containsExactlyInAnyOrderElementsOf(PORTED_FILES);
        assertThat(suite).hasSize(197);
    }

    @Test
    void everySpecOfThePortedFilesIsThereOnce() throws IOException {
        List<String> expected = rows().stream().filter(row -> PORTED_FILES.contains(row[0])).map(row -> row[2])
                .distinct().toList();

        assertThat(suite.stream().map(PlannedSpec::name).toList()).containsExactlyInAnyOrderElementsOf(expected);
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
