package io.kdra.framework;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The spec upgrades and downgrades its cluster ({@link ClusterBackend#switchVersion}), as upstream's
 * {@code versionskew.go} does with a kind cluster it builds for itself. On the embedded backend it gets a cluster of
 * its own, from its own tags, whose control plane and kubelets start one minor release before the run's Kubernetes
 * version (see {@link ClusterRequirements#upgradableFromPreviousMinor()}), so that no other spec sees the switches;
 * this costs one more cluster start. The kubeconfig backend ignores the annotation, and the spec skips there.
 *
 * <p>This is not a JUnit tag because a spec's tags are upstream's labels.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface UpgradesCluster {
}
