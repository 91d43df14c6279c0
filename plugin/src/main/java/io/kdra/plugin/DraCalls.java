package io.kdra.plugin;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.kdra.kubelet.api.dra.v1.Claim;
import io.kdra.kubelet.api.dra.v1.Device;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourceResponse;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The version-neutral implementation of NodePrepareResources and NodeUnprepareResources on top of a {@link DraPlugin}.
 * It works on the v1 messages; older API versions are wire-identical and converted by their service adapters.
 */
final class DraCalls {

    private static final Logger LOG = LoggerFactory.getLogger(DraCalls.class);

    private final DraPlugin plugin;
    private final ClaimLookup claims;
    private final CallSerializer serializer;
    private final DeviceMetadataFiles metadataFiles;

    /**
     * @param metadataFiles writes the device metadata files of prepared claims, or {@code null} when the plugin
     *     writes none
     */
    DraCalls(DraPlugin plugin, ClaimLookup claims, CallSerializer serializer, DeviceMetadataFiles metadataFiles) {
        this.plugin = plugin;
        this.claims = claims;
        this.serializer = serializer;
        this.metadataFiles = metadataFiles;
    }

    /**
     * Fetches and checks the claims, hands the good ones to the driver and merges both kinds of results.
     *
     * @param withShareIds whether the caller's API version has {@code Device.share_id}
     */
    NodePrepareResourcesResponse prepare(NodePrepareResourcesRequest request, boolean withShareIds)
            throws StatusException {
        checkClaimUids(request.getClaimsList());
        NodePrepareResourcesResponse.Builder response = NodePrepareResourcesResponse.newBuilder();
        // Slow API calls happen before the serialization lock is taken, as in the Go helper.
        List<ResourceClaim> checked = new ArrayList<>();
        for (Claim claim : request.getClaimsList()) {
            String problem = fetchProblem(claim, checked);
            if (problem != null) {
                response.putClaims(claim.getUid(), NodePrepareResourceResponse.newBuilder().setError(problem).build());
            }
        }
        if (!checked.isEmpty()) {
            Map<String, PrepareResult> results;
            CallSerializer.Permit permit = serialize();
            try {
                results = plugin.prepareResourceClaims(List.copyOf(checked));
                checkResults("prepare resource claims", results);
                if (metadataFiles != null) {
                    results = withDeviceMetadata(checked, results);
                }
            } catch (StatusRuntimeException e) {
                throw e.getStatus().asException();
            } catch (StatusException e) {
                throw e;
            } catch (Exception e) {
                throw failure("prepare resource claims", e);
            } finally {
                permit.close();
            }
            results.forEach((uid, result) -> response.putClaims(uid, toProto(result, withShareIds)));
        }
        // Claims that failed the check already have their answer; what is missing now, the driver left out.
        for (Claim claim : request.getClaimsList()) {
            if (!response.containsClaims(claim.getUid())) {
                response.putClaims(claim.getUid(),
                        NodePrepareResourceResponse.newBuilder().setError(noResult(claim)).build());
            }
        }
        return response.build();
    }

    NodeUnprepareResourcesResponse unprepare(NodeUnprepareResourcesRequest request) throws StatusException {
        checkClaimUids(request.getClaimsList());
        NodeUnprepareResourcesResponse.Builder response = NodeUnprepareResourcesResponse.newBuilder();
        if (request.getClaimsCount() == 0) {
            return response.build();
        }
        List<ClaimRef> refs = request.getClaimsList().stream()
                .map(claim -> new ClaimRef(claim.getNamespace(), claim.getName(), claim.getUid()))
                .toList();
        Map<String, UnprepareResult> results;
        CallSerializer.Permit permit = serialize();
        try {
            results = plugin.unprepareResourceClaims(refs);
            checkResults("unprepare resource claims", results);
            if (metadataFiles != null) {
                results = withoutDeviceMetadata(refs, results);
            }
        } catch (StatusRuntimeException e) {
            throw e.getStatus().asException();
        } catch (StatusException e) {
            throw e;
        } catch (Exception e) {
            throw failure("unprepare resource claims", e);
        } finally {
            permit.close();
        }
        results.forEach((uid, result) -> response.putClaims(uid, NodeUnprepareResourceResponse.newBuilder()
                .setError(result.isFailed() ? result.error() : "")
                .build()));
        for (Claim claim : request.getClaimsList()) {
            if (!response.containsClaims(claim.getUid())) {
                response.putClaims(claim.getUid(),
                        NodeUnprepareResourceResponse.newBuilder().setError(noResult(claim)).build());
            }
        }
        return response.build();
    }

    /**
     * Writes the metadata files of each prepared claim and adds their CDI devices; a claim whose files cannot be
     * written fails, so that the kubelet retries it.
     */
    private Map<String, PrepareResult> withDeviceMetadata(List<ResourceClaim> prepared,
            Map<String, PrepareResult> results) {
        Map<String, PrepareResult> withMetadata = new LinkedHashMap<>(results);
        for (ResourceClaim claim : prepared) {
            String uid = claim.getMetadata().getUid();
            PrepareResult result = results.get(uid);
            if (result == null || result.isFailed()) {
                continue;
            }
            try {
                withMetadata.put(uid, PrepareResult.prepared(metadataFiles.write(claim, result.devices())));
            } catch (IOException | RuntimeException e) {
                LOG.warn("claim {}/{}: {}", claim.getMetadata().getNamespace(), claim.getMetadata().getName(),
                        messageOf(e));
                withMetadata.put(uid, PrepareResult.failed(messageOf(e)));
            }
        }
        return withMetadata;
    }

    /** Removes the metadata files of each unprepared claim; a claim whose files remain fails, to be retried. */
    private Map<String, UnprepareResult> withoutDeviceMetadata(List<ClaimRef> refs,
            Map<String, UnprepareResult> results) {
        Map<String, UnprepareResult> withoutMetadata = new LinkedHashMap<>(results);
        for (ClaimRef ref : refs) {
            UnprepareResult result = results.get(ref.uid());
            if (result == null || result.isFailed()) {
                continue;
            }
            try {
                metadataFiles.remove(ref);
            } catch (IOException | RuntimeException e) {
                withoutMetadata.put(ref.uid(), UnprepareResult.failed("remove device metadata of claim " + ref
                        + ": " + messageOf(e)));
            }
        }
        return withoutMetadata;
    }

    private CallSerializer.Permit serialize() throws StatusException {
        try {
            return serializer.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Status.CANCELLED.withDescription("serialize gRPC: interrupted").withCause(e).asException();
        } catch (IOException e) {
            throw failure("serialize gRPC", e);
        }
    }

    /** A driver bug must reach the kubelet as a readable error, not as a bare exception from gRPC. */
    private static void checkResults(String operation, Map<String, ?> results) throws StatusException {
        if (results == null) {
            throw Status.UNKNOWN.withDescription(operation + ": the driver returned no result map").asException();
        }
        for (Map.Entry<String, ?> result : results.entrySet()) {
            if (result.getKey() == null || result.getValue() == null) {
                throw Status.UNKNOWN.withDescription(operation + ": the driver returned a null entry for claim UID "
                        + result.getKey()).asException();
            }
        }
    }

    /** Without an entry the kubelet would only know that some claim was left out, not which one or why. */
    private static String noResult(Claim claim) {
        return "the driver returned no result for claim " + claim.getNamespace() + "/" + claim.getName();
    }

    /** Responses are keyed by claim UID, so a request without UIDs or with one UID twice cannot be answered. */
    private static void checkClaimUids(List<Claim> requested) throws StatusException {
        Set<String> uids = new HashSet<>();
        for (int i = 0; i < requested.size(); i++) {
            Claim claim = requested.get(i);
            if (claim.getUid().isEmpty()) {
                throw Status.INVALID_ARGUMENT.withDescription("claim #" + i + " (" + claim.getNamespace() + "/"
                        + claim.getName() + ") has no UID").asException();
            }
            if (!uids.add(claim.getUid())) {
                throw Status.INVALID_ARGUMENT.withDescription("claim UID " + claim.getUid()
                        + " appears more than once in the request").asException();
            }
        }
    }

    /** Returns why the claim cannot be prepared, or adds the fetched claim to {@code checked} and returns null. */
    private String fetchProblem(Claim claim, List<ResourceClaim> checked) {
        String ref = claim.getNamespace() + "/" + claim.getName();
        if (claim.getNamespace().isEmpty() || claim.getName().isEmpty()) {
            return "claim " + ref + " with UID " + claim.getUid() + ": namespace and name are required";
        }
        ResourceClaim current;
        try {
            current = claims.get(claim.getNamespace(), claim.getName());
        } catch (Exception e) {
            LOG.debug("retrieving claim {} failed", ref, e);
            return "retrieve claim " + ref + ": " + messageOf(e);
        }
        if (current == null) {
            return "retrieve claim " + ref + ": resourceclaims.resource.k8s.io \"" + claim.getName() + "\" not found";
        }
        if (current.getStatus() == null || current.getStatus().getAllocation() == null) {
            return "claim " + ref + " not allocated";
        }
        if (!claim.getUid().equals(current.getMetadata().getUid())) {
            return "claim " + ref + " got replaced";
        }
        checked.add(current);
        return null;
    }

    private static NodePrepareResourceResponse toProto(PrepareResult result, boolean withShareIds) {
        NodePrepareResourceResponse.Builder claim = NodePrepareResourceResponse.newBuilder();
        if (result.isFailed()) {
            return claim.setError(result.error()).build();
        }
        for (PreparedDevice device : result.devices()) {
            Device.Builder proto = Device.newBuilder()
                    .setPoolName(device.poolName())
                    .setDeviceName(device.deviceName())
                    .addAllCdiDeviceIds(device.cdiDeviceIds());
            device.requestNames().forEach(name -> proto.addRequestNames(baseRequest(name)));
            if (withShareIds && device.shareId() != null) {
                proto.setShareId(device.shareId());
            }
            claim.addDevices(proto);
        }
        return claim.build();
    }

    /** {@code req/sub} names a subrequest; the kubelet only knows the base request {@code req}. */
    private static String baseRequest(String requestName) {
        int slash = requestName.indexOf('/');
        return slash < 0 ? requestName : requestName.substring(0, slash);
    }

    private static StatusException failure(String operation, Exception cause) {
        LOG.debug("{} failed", operation, cause);
        return Status.UNKNOWN.withDescription(operation + ": " + messageOf(cause)).withCause(cause).asException();
    }

    /**
     * @return the error's message and, when the root cause says something else, that too: a client's "An error has
     *     occurred." says nothing of the "Connection refused" below it
     */
    private static String messageOf(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root == e) {
            return message;
        }
        String cause = root.getClass().getName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
        return message.contains(cause) ? message : message + " (" + cause + ")";
    }
}
