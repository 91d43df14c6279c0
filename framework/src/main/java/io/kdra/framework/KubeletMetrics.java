package io.kdra.framework;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Samples of one metric in a kubelet's Prometheus text, keyed by one label's value, as upstream's node specs read
 * {@code dra_resource_claims_in_use} by {@code driver_name} (with {@code <any>} for all drivers).
 */
public final class KubeletMetrics {

    /** The kubelet's gauge of claims in use on the node, per driver. */
    public static final String DRA_RESOURCE_CLAIMS_IN_USE = "dra_resource_claims_in_use";
    public static final String DRIVER_NAME_LABEL = "driver_name";
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)\\})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private KubeletMetrics() {
    }

    /**
     * The samples of {@code metric}, each under the value of its label {@code label}; samples without that label are
     * left out.
     */
    public static Map<String, Double> samples(String prometheusText, String metric, String label) {
        Map<String, Double> samples = new TreeMap<>();
        for (String line : prometheusText.split("\n")) {
            Matcher sample = SAMPLE.matcher(line.strip());
            if (line.startsWith("#") || !sample.find() || !sample.group(1).equals(metric)) {
                continue;
            }
            Matcher labels = LABEL.matcher(sample.group(3) == null ? "" : sample.group(3));
            while (labels.find()) {
                if (labels.group(1).equals(label)) {
                    samples.put(labels.group(2), Double.parseDouble(sample.group(4)));
                }
            }
        }
        return samples;
    }

    /** {@value #DRA_RESOURCE_CLAIMS_IN_USE} by driver name, {@code <any>} included. */
    public static Map<String, Double> claimsInUse(String prometheusText) {
        return samples(prometheusText, DRA_RESOURCE_CLAIMS_IN_USE, DRIVER_NAME_LABEL);
    }
}
