package io.kdra.framework;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The spec (or every spec of the class) relies on the kubelet's real slice-wiping delay: 30 s between a driver's last
 * instance going away and the kubelet deleting that driver's ResourceSlices of the node (upstream's
 * {@code defaultWipingDelay}). The embedded backend's fast timing wipes after 2 s; an annotated spec gets an embedded
 * cluster of its own whose kubelets wait the real 30 s (everything else keeps the fast timing), which costs one more
 * cluster start. A real cluster has that delay anyway, so the kubeconfig backend ignores the annotation.
 *
 * <p>This is not a JUnit tag because a spec's tags are upstream's labels.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface RealSliceWipingDelay {
}
