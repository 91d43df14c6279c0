package io.kdra.cluster.scheduler;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.kdra.allocator.AllocatorFeatures;
import io.kdra.allocator.StructuredAllocator;
import io.kdra.allocator.cel.CelSelectorCompiler;
import io.kdra.apiserver.ApiServer;
import io.kdra.apiserver.ApiServerConfig;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.client.KubeClients;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * A real API server, an admin client for the test (which also stands in for the resourceclaim controller) and the
 * scheduler under test with its own identity. The tests work in namespace {@code default}.
 */
final class SchedulerFixture implements AutoCloseable {

    static final String DRIVER = "dra.example.com";
    static final String CLASS = "example";

    final ApiServer server;
    final KubeClients clients = KubeClients.create();
    final KubernetesClient client;
    final KubernetesClient schedulerClient;
    final Scheduler scheduler;

    SchedulerFixture() {
        this(ApiServerConfig.defaults().featureGates(), Timing.FAST);
    }

    /** The gates reach the API server (validation, dropped fields) and the allocator, as in a cluster. */
    SchedulerFixture(FeatureGates gates, Timing timing) {
        this(gates, timing, admin -> { });
    }

    /**
     * As {@link #SchedulerFixture(FeatureGates, Timing)}, with objects that {@code existing} creates before the
     * scheduler starts: its informers list them before it schedules anything, so no later object's event can reach
     * it first.
     */
    SchedulerFixture(FeatureGates gates, Timing timing, Consumer<KubernetesClient> existing) {
        server = ApiServer.builder().config(ApiServerConfig.defaults()
                .withKubernetesVersion(gates.version().toString()).withFeatureGates(gates)).build().start();
        client = clients.client(server.url(), server.adminToken(), server.caCertificatePem());
        schedulerClient = clients.client(server.url(), server.issueToken(
                new UserInfo("system:kube-scheduler", "", List.of("system:authenticated"), Map.of())),
                server.caCertificatePem());
        StructuredAllocator allocator = new StructuredAllocator(
                CelSelectorCompiler.create(CelSelectorCompiler.Options.defaults()), AllocatorFeatures.from(gates));
        existing.accept(client);
        scheduler = new Scheduler(schedulerClient, allocator, timing, "default-scheduler");
        if (gates.enabled(FeatureGates.GENERIC_WORKLOAD) && gates.enabled(FeatureGates.DRA_WORKLOAD_RESOURCE_CLAIMS)) {
            scheduler.withPodGroupClaims();
        }
        if (gates.enabled(FeatureGates.DRA_NODE_ALLOCATABLE_RESOURCES)) {
            scheduler.withNodeAllocatableResources();
        }
        scheduler.start();
    }

    // --- nodes

    Node node(String name) {
        return node(new NodeBuilder().withNewMetadata().withName(name).endMetadata());
    }

    Node node(NodeBuilder node) {
        return client.nodes().resource(ready(node, "True").build()).create();
    }

    static NodeBuilder ready(NodeBuilder node, String status) {
        return node.editOrNewStatus().withConditions(new io.fabric8.kubernetes.api.model.NodeConditionBuilder()
                .withType("Ready").withStatus(status).withReason("KubeletReady").build()).endStatus();
    }

    static Taint taint(String key, String effect) {
        return new Taint(effect, key, null, "x");
    }

    // --- devices

    DeviceClass deviceClass(String name, String... extraSelectors) {
        DeviceClassBuilder builder = new DeviceClassBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().addNewSelector().withNewCel().withExpression("device.driver == \"" + DRIVER + "\"")
                .endCel().endSelector().endSpec();
        for (String selector : extraSelectors) {
            builder.editSpec().addNewSelector().withNewCel().withExpression(selector).endCel().endSelector().endSpec();
        }
        return client.resources(DeviceClass.class).resource(builder.build()).create();
    }

    ResourceSlice slice(String node, int devices) {
        return slice(node, IntStream.range(0, devices)
                .mapToObj(i -> new DeviceBuilder().withName(String.format("device-%02d", i)).build()).toList());
    }

    ResourceSlice slice(String node, List<Device> devices) {
        return client.resources(ResourceSlice.class).resource(new ResourceSliceBuilder()
                .withNewMetadata().withName(node + "-" + DRIVER).endMetadata()
                .withNewSpec().withDriver(DRIVER).withNodeName(node)
                .withNewPool().withName(node).withGeneration(1L).withResourceSliceCount(1L).endPool()
                .withDevices(devices).endSpec().build()).create();
    }

    // --- claims and pods

    ResourceClaim claim(String name) {
        return client.resources(ResourceClaim.class).resource(claimBuilder(name, CLASS).build()).create();
    }

    static ResourceClaimBuilder claimBuilder(String name, String className) {
        return new ResourceClaimBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withNewDevices().addNewRequest().withName("req").withNewExactly()
                .withDeviceClassName(className).endExactly().endRequest().endDevices().endSpec();
    }

    /** A pod whose claim {@code gpu} comes from a template, as the resourceclaim controller would see it. */
    Pod templatePod(String name) {
        return client.pods().resource(podBuilder(name).editSpec().addNewResourceClaim().withName("gpu")
                .withResourceClaimTemplateName("template").endResourceClaim().endSpec().build()).create();
    }

    /** A pod using the existing claim {@code claim} as {@code gpu}. */
    Pod claimPod(String name, String claim) {
        return client.pods().resource(podBuilder(name).editSpec().addNewResourceClaim().withName("gpu")
                .withResourceClaimName(claim).endResourceClaim().endSpec().build()).create();
    }

    static PodBuilder podBuilder(String name) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .withContainers(new ContainerBuilder().withName("c").withImage("busybox").withNewResources()
                        .addNewClaim().withName("gpu").endClaim().endResources().build())
                .endSpec();
    }

    Pod plainPod(PodBuilder pod) {
        Pod built = pod.build();
        built.getSpec().getContainers().get(0).setResources(null);
        return client.pods().resource(built).create();
    }

    /** What the resourceclaim controller does for a template claim: create the claim, then record it in the pod. */
    ResourceClaim generateClaim(Pod pod, String className) {
        ResourceClaim claim = client.resources(ResourceClaim.class).resource(
                claimBuilder(pod.getMetadata().getName() + "-gpu-abcde", className).editMetadata()
                        .addToAnnotations("resource.kubernetes.io/pod-claim-name", "gpu")
                        .addNewOwnerReference().withApiVersion("v1").withKind("Pod")
                        .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid())
                        .withController(true).withBlockOwnerDeletion(true).endOwnerReference()
                        .endMetadata().build()).create();
        client.pods().withName(pod.getMetadata().getName()).editStatus(current -> new PodBuilder(current)
                .editStatus().withResourceClaimStatuses(new PodResourceClaimStatus("gpu",
                        claim.getMetadata().getName())).endStatus().build());
        return claim;
    }

    Pod pod(String name) {
        return client.pods().withName(name).get();
    }

    ResourceClaim claimNamed(String name) {
        return client.resources(ResourceClaim.class).withName(name).get();
    }

    String nodeOf(String pod) {
        Pod current = pod(pod);
        return current == null ? null : current.getSpec().getNodeName();
    }

    /** The PodScheduled condition's message, or null. */
    String schedulingMessage(String pod) {
        PodCondition condition = scheduledCondition(pod);
        return condition == null ? null : condition.getMessage();
    }

    PodCondition scheduledCondition(String pod) {
        Pod current = pod(pod);
        if (current == null || current.getStatus() == null || current.getStatus().getConditions() == null) {
            return null;
        }
        return current.getStatus().getConditions().stream().filter(c -> "PodScheduled".equals(c.getType()))
                .findFirst().orElse(null);
    }

    /** Stands in for the resourceclaim controller when the pod is gone: clear allocation and reservations. */
    void deallocate(String claimName) {
        client.resources(ResourceClaim.class).withName(claimName).editStatus(claim -> new ResourceClaimBuilder(claim)
                .withStatus(null).build());
    }

    /** Every device in every allocated claim. */
    List<String> allocatedDevices() {
        List<String> devices = new ArrayList<>();
        for (ResourceClaim claim : client.resources(ResourceClaim.class).list().getItems()) {
            if (claim.getStatus() != null && claim.getStatus().getAllocation() != null) {
                for (DeviceRequestAllocationResult result : claim.getStatus().getAllocation().getDevices()
                        .getResults()) {
                    devices.add(result.getPool() + "/" + result.getDevice());
                }
            }
        }
        return devices;
    }

    static Condition condition(String type, String status) {
        return new io.fabric8.kubernetes.api.model.ConditionBuilder().withType(type).withStatus(status)
                .withReason("Test").withMessage("set by the test").withLastTransitionTime("2026-01-01T00:00:00Z")
                .build();
    }

    /** A watcher that records every version of the claims it sees. */
    static Watcher<ResourceClaim> recorder(List<ResourceClaim> versions) {
        return new Watcher<>() {
            @Override
            public void eventReceived(Action action, ResourceClaim claim) {
                versions.add(claim);
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        };
    }

    @Override
    public void close() {
        scheduler.close();
        clients.close();
        server.close();
    }
}
