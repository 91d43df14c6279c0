package io.kdra.plugin;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.kdra.kubelet.api.pluginregistration.v1.InfoRequest;
import io.kdra.kubelet.api.pluginregistration.v1.PluginInfo;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationGrpc;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationStatusResponse;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code pluginregistration.Registration}: tells the kubelet's plugin watcher who the plugin is and where its DRA
 * socket is, and records the kubelet's verdict. Both calls can be made to fail on purpose, for registration retry
 * tests.
 */
final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {

    private static final Logger LOG = LoggerFactory.getLogger(RegistrationService.class);
    /** The plugin type the kubelet routes to its DRA handler. */
    static final String DRA_PLUGIN_TYPE = "DRAPlugin";

    private final PluginInfo info;
    private volatile RegistrationStatus status;
    private volatile String getInfoError;
    private volatile String notifyError;

    RegistrationService(String driverName, String draEndpoint, List<String> supportedVersions) {
        this.info = PluginInfo.newBuilder()
                .setType(DRA_PLUGIN_TYPE)
                .setName(driverName)
                .setEndpoint(draEndpoint)
                .addAllSupportedVersions(supportedVersions)
                .build();
    }

    @Override
    public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
        String error = getInfoError;
        if (error != null) {
            response.onError(Status.UNKNOWN.withDescription(error).asException());
            return;
        }
        response.onNext(info);
        response.onCompleted();
    }

    @Override
    public void notifyRegistrationStatus(io.kdra.kubelet.api.pluginregistration.v1.RegistrationStatus request,
            StreamObserver<RegistrationStatusResponse> response) {
        String error = notifyError;
        if (error != null) {
            response.onError(Status.UNKNOWN.withDescription(error).asException());
            return;
        }
        status = new RegistrationStatus(request.getPluginRegistered(), request.getError());
        if (!request.getPluginRegistered()) {
            LOG.warn("kubelet rejected DRA driver {}: {}", info.getName(), request.getError());
            response.onError(Status.UNKNOWN.withDescription("failed registration process: " + request.getError())
                    .asException());
            return;
        }
        LOG.info("DRA driver {} registered with the kubelet", info.getName());
        response.onNext(RegistrationStatusResponse.getDefaultInstance());
        response.onCompleted();
    }

    Optional<RegistrationStatus> status() {
        return Optional.ofNullable(status);
    }

    void setGetInfoError(String error) {
        getInfoError = error;
    }

    void setNotifyError(String error) {
        notifyError = error;
    }
}
