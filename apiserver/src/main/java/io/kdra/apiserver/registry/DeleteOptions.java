package io.kdra.apiserver.registry;

/**
 * The options of a delete (meta/v1 DeleteOptions): grace period (pods), propagation policy ({@code Orphan},
 * {@code Background}, {@code Foreground}; null for the default) and preconditions.
 */
public record DeleteOptions(Long gracePeriodSeconds, String propagationPolicy, String preconditionUid,
        String preconditionResourceVersion) {

    public static final String ORPHAN = "Orphan";
    public static final String BACKGROUND = "Background";
    public static final String FOREGROUND = "Foreground";

    public static DeleteOptions defaults() {
        return new DeleteOptions(null, null, null, null);
    }
}
