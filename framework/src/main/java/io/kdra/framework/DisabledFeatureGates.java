package io.kdra.framework;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The spec (or every spec of the class) is about these feature gates being off, as upstream's specs that skip
 * themselves when a gate is enabled ({@code e2eskipper.IsFeatureGateEnabled}). The embedded backend runs such a spec
 * on a cluster of its own requirements with these gates off, not on the run's shared cluster that turns on every gate
 * of the run; one more cluster start. On other backends the spec checks the gate itself
 * ({@link ClusterBackend#featureGateEnabled}) and skips.
 *
 * <p>This is not a JUnit tag because a spec's tags are upstream's labels.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface DisabledFeatureGates {

    /** The gates, by name. */
    String[] value();
}
