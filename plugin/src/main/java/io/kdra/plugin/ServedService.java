package io.kdra.plugin;

import io.grpc.BindableService;

/**
 * The gRPC services a plugin can serve on its DRA socket, in the order they are advertised in
 * {@code PluginInfo.supported_versions} (the plugin's preference; 1.34+ kubelets pick the first they support).
 */
enum ServedService {
    NODE_V1("v1.DRAPlugin"),
    NODE_V1BETA1("v1beta1.DRAPlugin"),
    /** The advertised name differs from the gRPC service {@code v1alpha3.Node}, as upstream. */
    NODE_V1ALPHA4("v1alpha3.NodeService"),
    HEALTH_V1("v1.DRAResourceHealth"),
    HEALTH_V1BETA1("v1beta1.DRAResourceHealth"),
    HEALTH_V1ALPHA1("v1alpha1.DRAResourceHealth");

    private final String advertisedName;

    ServedService(String advertisedName) {
        this.advertisedName = advertisedName;
    }

    /** The string the kubelet finds in {@code supported_versions}. */
    String advertisedName() {
        return advertisedName;
    }

    boolean isHealth() {
        return this == HEALTH_V1 || this == HEALTH_V1BETA1 || this == HEALTH_V1ALPHA1;
    }

    BindableService bind(DraCalls calls, HealthStreams health) {
        return switch (this) {
            case NODE_V1 -> DraServices.v1(calls);
            case NODE_V1BETA1 -> DraServices.v1beta1(calls);
            case NODE_V1ALPHA4 -> DraServices.v1alpha4(calls);
            case HEALTH_V1 -> health.v1();
            case HEALTH_V1BETA1 -> health.v1beta1();
            case HEALTH_V1ALPHA1 -> health.v1alpha1();
        };
    }
}
