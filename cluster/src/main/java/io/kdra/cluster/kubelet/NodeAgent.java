package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's node side: registers the Node (labels, capacity, addresses, kubelet endpoint, node info) and posts it
 * Ready, then renews the node's Lease in {@code kube-node-lease} every {@code nodeLeaseRenewInterval}. When a renewal
 * comes late enough that the node lifecycle controller may have marked the node NotReady meanwhile, the kubelet posts
 * its Ready status again, as its periodic status update would.
 */
final class NodeAgent {

    private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);
    static final String LEASE_NAMESPACE = "kube-node-lease";
    private static final int LEASE_DURATION_SECONDS = 40;

    private final KubeletConfig config;
    private final KubernetesClient client;
    private final KubeletHost host;
    private volatile ScheduledFuture<?> renewal;
    private volatile String nodeUid;
    private Instant lastRenewal = Instant.MIN;

    NodeAgent(KubeletConfig config, KubernetesClient client, KubeletHost host) {
        this.config = config;
        this.client = client;
        this.host = host;
    }

    /** Registers the node, posts it Ready and starts renewing the Lease. */
    void start() {
        register();
        postReady();
        renewLease();
        long period = config.timing().nodeLeaseRenewInterval().toMillis();
        renewal = host.executor().scheduleWithFixedDelay(this::renewLeaseSafely, period, period,
                TimeUnit.MILLISECONDS);
    }

    void stop() {
        ScheduledFuture<?> current = renewal;
        if (current != null) {
            current.cancel(false);
        }
    }

    private void register() {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("kubernetes.io/hostname", config.nodeName());
        labels.put("kubernetes.io/os", "linux");
        labels.put("kubernetes.io/arch", "amd64");
        labels.putAll(config.labels());
        try {
            nodeUid = client.nodes().resource(new NodeBuilder().withNewMetadata().withName(config.nodeName())
                    .withLabels(labels).endMetadata().build()).create().getMetadata().getUid();
            LOG.info("node {}: registered", config.nodeName());
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            // An existing node (a restarted kubelet) keeps its object; the kubelet re-asserts its labels.
            nodeUid = client.nodes().withName(config.nodeName())
                    .patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
                            json(Map.of("metadata", Map.of("labels", labels))))
                    .getMetadata().getUid();
        }
    }

    /** Writes the node's status: Ready, capacity, addresses, the kubelet endpoint and node info. */
    void postReady() {
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        Map<String, Object> capacity = new HashMap<>();
        config.capacity().forEach((name, value) -> capacity.put(name, new Quantity(value).toString()));
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("capacity", capacity);
        status.put("allocatable", capacity);
        status.put("conditions", List.of(
                condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                        "kubelet has sufficient memory available", now),
                condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure", now),
                condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available",
                        now),
                condition("Ready", "True", "KubeletReady", "kubelet is posting ready status", now)));
        status.put("addresses", List.of(Map.of("type", "InternalIP", "address", "127.0.0.1"),
                Map.of("type", "Hostname", "address", config.nodeName())));
        status.put("daemonEndpoints", Map.of("kubeletEndpoint", Map.of("Port", config.serverPort())));
        status.put("nodeInfo", Map.of(
                "kubeletVersion", "v" + config.kubeletVersion() + ".0",
                "kubeProxyVersion", "",
                "operatingSystem", "linux",
                "architecture", "amd64",
                "containerRuntimeVersion", "kdra://" + config.kubeletVersion(),
                "osImage", "kdra simulated node",
                "kernelVersion", System.getProperty("os.version", ""),
                "machineID", "", "systemUUID", "", "bootID", ""));
        client.nodes().withName(config.nodeName()).subresource("status")
                .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), json(Map.of("status", status)));
    }

    private static Map<String, Object> condition(String type, String status, String reason, String message,
            String now) {
        return Map.of("type", type, "status", status, "reason", reason, "message", message,
                "lastHeartbeatTime", now, "lastTransitionTime", now);
    }

    private void renewLeaseSafely() {
        try {
            Instant previous = lastRenewal;
            renewLease();
            // A gap longer than half the grace period may have let the node lifecycle controller mark us NotReady.
            if (previous.plus(config.timing().nodeMonitorGracePeriod().dividedBy(2)).isBefore(lastRenewal)) {
                postReady();
            }
        } catch (RuntimeException e) {
            LOG.info("node {}: renewing the lease failed: {}", config.nodeName(), e.getMessage());
        }
    }

    private void renewLease() {
        Instant now = Instant.now();
        ZonedDateTime renewTime = now.truncatedTo(ChronoUnit.MICROS).atZone(ZoneOffset.UTC);
        var leases = client.leases().inNamespace(LEASE_NAMESPACE);
        Lease lease = leases.withName(config.nodeName()).get();
        if (lease == null) {
            ObjectMeta metadata = new ObjectMeta();
            metadata.setName(config.nodeName());
            metadata.setNamespace(LEASE_NAMESPACE);
            if (nodeUid != null) {
                metadata.setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node")
                        .withName(config.nodeName()).withUid(nodeUid).build()));
            }
            leases.resource(new LeaseBuilder().withMetadata(metadata).withNewSpec()
                    .withHolderIdentity(config.nodeName()).withLeaseDurationSeconds(LEASE_DURATION_SECONDS)
                    .withRenewTime(renewTime).endSpec().build()).create();
        } else {
            lease.getSpec().setHolderIdentity(config.nodeName());
            lease.getSpec().setLeaseDurationSeconds(LEASE_DURATION_SECONDS);
            lease.getSpec().setRenewTime(renewTime);
            leases.resource(lease).update();
        }
        lastRenewal = now;
    }

    private String json(Object value) {
        return client.getKubernetesSerialization().asJson(value);
    }
}
