package io.kdra.framework;

import java.util.Objects;

/**
 * One gRPC method on one node's plugin, the key of {@link Driver#callCount} and {@link Driver#fail}. Method names are
 * gRPC full names with Go's leading slash, as upstream's interceptors see them.
 *
 * @param nodeName the node whose plugin serves the call
 * @param fullMethod for example {@link #NODE_PREPARE_RESOURCES}
 */
public record MethodInstance(String nodeName, String fullMethod) {

    /** v1beta1 NodePrepareResources (the seed's {@code NodePrepareResourcesMethod}). */
    public static final String NODE_PREPARE_RESOURCES =
            "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodePrepareResources";
    /** v1beta1 NodeUnprepareResources (the seed's {@code NodeUnprepareResourcesMethod}). */
    public static final String NODE_UNPREPARE_RESOURCES =
            "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodeUnprepareResources";
    public static final String NODE_PREPARE_RESOURCES_V1 =
            "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources";
    public static final String NODE_UNPREPARE_RESOURCES_V1 =
            "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodeUnprepareResources";
    /** v1alpha4, served as {@code v1alpha3.Node} (kubelets 1.31 to 1.33). */
    public static final String NODE_PREPARE_RESOURCES_V1ALPHA4 = "/v1alpha3.Node/NodePrepareResources";
    public static final String NODE_UNPREPARE_RESOURCES_V1ALPHA4 = "/v1alpha3.Node/NodeUnprepareResources";
    public static final String GET_INFO = "/pluginregistration.Registration/GetInfo";
    public static final String NOTIFY_REGISTRATION_STATUS =
            "/pluginregistration.Registration/NotifyRegistrationStatus";

    /** The health stream a 1.34 to 1.36 kubelet opens. */
    public static final String NODE_WATCH_RESOURCES_V1ALPHA1 =
            "/v1alpha1.DRAResourceHealth/NodeWatchResources";
    /** The health stream a 1.37+ kubelet opens when the driver serves it. */
    public static final String NODE_WATCH_RESOURCES_V1 = "/v1.DRAResourceHealth/NodeWatchResources";

    public MethodInstance {
        Objects.requireNonNull(nodeName, "nodeName");
        if (fullMethod == null || !fullMethod.startsWith("/")) {
            throw new IllegalArgumentException("full method must start with '/', got " + fullMethod);
        }
    }
}
