package io.kdra.cluster;

import java.util.Map;
import java.util.Objects;

/**
 * A node of the embedded cluster: its name and the labels its kubelet registers besides the standard ones
 * ({@code kubernetes.io/hostname}, {@code kubernetes.io/os}, {@code kubernetes.io/arch}).
 */
public record NodeSpec(String name, Map<String, String> labels) {

    public NodeSpec {
        Objects.requireNonNull(name, "name");
        labels = Map.copyOf(labels);
    }

    public static NodeSpec named(String name) {
        return new NodeSpec(name, Map.of());
    }
}
