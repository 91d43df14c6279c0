package io.kdra.framework;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The specs of the class are upstream's node suite ({@code test/e2e_node}), which upstream runs on a node of its own,
 * apart from {@code test/e2e}'s cluster. On the embedded backend they get a cluster of their own with the same
 * requirements as the run's shared one, so that their {@code [Serial]} (they restart the node's kubelet and plugins)
 * holds up only each other, not every other spec of the run. The kubeconfig backend ignores the annotation.
 *
 * <p>This is not a JUnit tag because a spec's tags are upstream's labels.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface NodeSuite {
}
