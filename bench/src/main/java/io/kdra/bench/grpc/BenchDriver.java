package io.kdra.bench.grpc;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.kdra.plugin.ClaimRef;
import io.kdra.plugin.DraPlugin;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.plugin.PrepareResult;
import io.kdra.plugin.PreparedDevice;
import io.kdra.plugin.UnprepareResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The driver side of the gRPC benchmarks: a driver that prepares one device per claim without touching the disk, one
 * allocated claim served from memory, and two interceptors of the kind drivers install (call counting and a metadata
 * read for logging).
 */
final class BenchDriver implements DraPlugin {

    static final String DRIVER = "bench.example.com";
    static final String NAMESPACE = "default";
    static final String CLAIM_NAME = "claim-0";
    static final String CLAIM_UID = "0c1a1b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b";

    private static final Metadata.Key<String> USER_AGENT =
            Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER);

    private BenchDriver() {
    }

    /**
     * Starts a plugin serving the v1 and v1beta1 DRA services under {@code directory}.
     *
     * @param calls counts the calls the first interceptor sees
     */
    static KubeletPlugin startPlugin(Path directory, LongAdder calls) throws IOException {
        ResourceClaim claim = new ResourceClaimBuilder()
                .withNewMetadata().withNamespace(NAMESPACE).withName(CLAIM_NAME).withUid(CLAIM_UID).endMetadata()
                .withNewStatus().withNewAllocation().withNewDevices().addNewResult()
                .withRequest("gpu").withDriver(DRIVER).withPool("node-1").withDevice("device-00")
                .endResult().endDevices().endAllocation().endStatus()
                .build();
        return KubeletPlugin.builder(DRIVER, new BenchDriver())
                .registrarDirectory(directory.resolve("registry"))
                .pluginDataDirectory(directory.resolve("plugin"))
                .claimLookup((namespace, name) -> NAMESPACE.equals(namespace) && CLAIM_NAME.equals(name) ? claim : null)
                // nothing here blocks: the claim is in memory, the driver does not touch the disk
                .callsOnEventLoop(true)
                .unaryInterceptor(new ServerInterceptor() {
                    @Override
                    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                            ServerCallHandler<Q, R> next) {
                        calls.increment();
                        return next.startCall(call, headers);
                    }
                })
                .unaryInterceptor(new ServerInterceptor() {
                    @Override
                    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                            ServerCallHandler<Q, R> next) {
                        if (headers.get(USER_AGENT) == null) {
                            throw new IllegalStateException("call without user agent");
                        }
                        return next.startCall(call, headers);
                    }
                })
                .start();
    }

    @Override
    public Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) {
        Map<String, PrepareResult> results = new HashMap<>();
        for (ResourceClaim claim : claims) {
            String uid = claim.getMetadata().getUid();
            var result = claim.getStatus().getAllocation().getDevices().getResults().get(0);
            results.put(uid, PrepareResult.prepared(List.of(new PreparedDevice(List.of(result.getRequest()),
                    result.getPool(), result.getDevice(), List.of(DRIVER + "/test=claim-" + uid + "-gpu")))));
        }
        return results;
    }

    @Override
    public Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) {
        Map<String, UnprepareResult> results = new HashMap<>();
        claims.forEach(claim -> results.put(claim.uid(), UnprepareResult.unprepared()));
        return results;
    }
}
