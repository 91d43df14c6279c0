package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.MethodInstance;
import io.kdra.framework.NodePlugin;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import io.kdra.testdriver.ClaimId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group B: the kubelet with one node and a network-attached pool of ten devices. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class KubeletSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.networkResources(10, false));
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("registers plugin")
    void registersPlugin() {
        f.by("the driver is running");
    }

    @Test
    @DisplayName("must retry NodePrepareResources")
    void mustRetryNodePrepareResources() throws Exception {
        // The DRA API version depends on the kubelet's version, so both are failed and counted.
        String node = driver.nodeNames().get(0);
        MethodInstance v1beta1 = new MethodInstance(node, MethodInstance.NODE_PREPARE_RESOURCES);
        MethodInstance v1 = new MethodInstance(node, MethodInstance.NODE_PREPARE_RESOURCES_V1);
        driver.fail(v1beta1, true);
        driver.fail(v1, true);

        f.by("waiting for container startup to fail");
        Builder.PodWithTemplate inline = b.podInline();
        b.create(inline.pod(), inline.template());

        f.by("wait for NodePrepareResources call");
        Waits.until("NodePrepareResources called", f.timeouts().podStart())
                .until(() -> driver.callCount(v1beta1) + driver.callCount(v1), greaterThan(0L));

        f.by("allowing container startup to succeed");
        long callCount = driver.callCount(v1beta1) + driver.callCount(v1);
        driver.fail(v1, false);
        driver.fail(v1beta1, false);
        Pods.waitForRunning(f, inline.pod());
        assertThat(driver.callCount(v1beta1) + driver.callCount(v1))
                .as("NodePrepareResources should have been called again").isGreaterThan(callCount);
    }

    @Test
    @DisplayName("must not run a pod if a claim is not ready")
    void mustNotRunAPodIfAClaimIsNotReady() {
        ResourceClaim claim = b.externalClaim();
        b.create(claim);
        Pod pod = b.podExternal(claim.getMetadata().getName());
        // Binding the pod to the node bypasses the scheduler: the pod reaches the kubelet although its claim is not
        // allocated, and nothing allocates it later.
        pod.getSpec().setNodeName(nodes.nodeNames().get(0));
        b.create(pod);

        Waits.during("pod " + pod.getMetadata().getName() + " stays Pending", f.timeouts().pending())
                .until(Pods.phase(f, pod), equalTo(Pods.PENDING));
    }

    @Test
    @DisplayName("must unprepare resources for force-deleted pod")
    void mustUnprepareResourcesForForceDeletedPod() throws Exception {
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        pod.getSpec().setTerminationGracePeriodSeconds(0L);
        b.create(claim, pod);
        b.testPod(pod);

        f.by("force delete test pod " + pod.getMetadata().getName());
        f.client().pods().inNamespace(f.namespace()).withName(pod.getMetadata().getName()).withGracePeriod(0)
                .delete();

        for (NodePlugin plugin : driver.nodes().values()) {
            f.by("waiting for resources on " + plugin.nodeName() + " to be unprepared");
            Waits.until("prepared claims on host " + plugin.nodeName(), Duration.ofMinutes(1))
                    .until(plugin::preparedClaims, empty());
        }
    }

    @Test
    @DisplayName("must call NodePrepareResources even if not used by any container")
    void mustCallNodePrepareResourcesEvenIfNotUsedByAnyContainer() {
        Builder.PodWithTemplate inline = b.podInline();
        for (Container container : inline.pod().getSpec().getContainers()) {
            container.getResources().setClaims(null);
        }
        b.create(inline.pod(), inline.template());
        Pods.waitForRunning(f, inline.pod());
        for (NodePlugin plugin : driver.nodes().values()) {
            assertThat(plugin.preparedClaims()).as("claims should be prepared on host %s while pod is running",
                    plugin.nodeName()).isNotEmpty();
        }
    }

    @Test
    @DisplayName("must map configs and devices to the right containers")
    void mustMapConfigsAndDevicesToTheRightContainers() throws Exception {
        // Several claims, each with three requests and three configs: one config for all requests, the others for
        // one request each.
        ResourceClaim all = b.externalClaim();
        all.getMetadata().setName("all");
        DeviceRequest request = all.getSpec().getDevices().getRequests().get(0);
        all.getSpec().getDevices().setRequests(List.of(
                new DeviceRequestBuilder(request).withName("req0").build(),
                new DeviceRequestBuilder(request).withName("req1").build(),
                new DeviceRequestBuilder(request).withName("req2").build()));
        all.getSpec().getDevices().setConfig(configs(all, "all"));
        ResourceClaim container0 = new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder(all)
                .editMetadata().withName("container0").endMetadata().build();
        container0.getSpec().getDevices().setConfig(configs(all, "container0"));
        ResourceClaim container1 = new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder(all)
                .editMetadata().withName("container1").endMetadata().build();
        container1.getSpec().getDevices().setConfig(configs(all, "container1"));

        Pod pod = b.podExternal("");
        pod.getSpec().setResourceClaims(List.of(
                new PodResourceClaimBuilder().withName("all").withResourceClaimName("all").build(),
                new PodResourceClaimBuilder().withName("container0").withResourceClaimName("container0").build(),
                new PodResourceClaimBuilder().withName("container1").withResourceClaimName("container1").build()));
        Container first = pod.getSpec().getContainers().get(0);
        pod.getSpec().setContainers(new ArrayList<>(List.of(
                new ContainerBuilder(first).withName("container0").editResources()
                        .withClaims(new ResourceClaimBuilder().withName("all").build(),
                                new ResourceClaimBuilder().withName("container0").build())
                        .endResources().build(),
                // everything of "all", but only the second request of "container1"
                new ContainerBuilder(first).withName("container1").editResources()
                        .withClaims(new ResourceClaimBuilder().withName("all").build(),
                                new ResourceClaimBuilder().withName("container1").withRequest("req1").build())
                        .endResources().build())));

        // Every claim sets its own user variables; the driver also sets claim_<claim>_<request>=true.
        List<String> allContainersEnv = List.of(
                "user_all_config0", "true", "user_all_config1", "true", "user_all_config2", "true",
                "claim_all_req0", "true", "claim_all_req1", "true", "claim_all_req2", "true");
        List<String> container0Env = new ArrayList<>(List.of(
                "user_container0_config0", "true", "user_container0_config1", "true",
                "user_container0_config2", "true",
                "claim_container0_req0", "true", "claim_container0_req1", "true", "claim_container0_req2", "true"));
        container0Env.addAll(allContainersEnv);
        // the first two configs apply; user_container1_config2 does not
        List<String> container1Env = new ArrayList<>(List.of(
                "user_container1_config0", "true", "user_container1_config1", "true",
                "claim_container1_req1", "true"));
        container1Env.addAll(allContainersEnv);

        b.create(all, container0, container1, pod);
        Pods.waitForRunning(f, pod);
        Builder.testContainerEnv(f, pod, "container0", true, container0Env.toArray(String[]::new));
        Builder.testContainerEnv(f, pod, "container1", true, container1Env.toArray(String[]::new));
    }

    /** Three configs of the claim's first config: for all requests, for req1, for req2, with unique parameters. */
    private static List<DeviceClaimConfiguration> configs(ResourceClaim claim, String prefix) {
        DeviceClaimConfiguration template = claim.getSpec().getDevices().getConfig().get(0);
        List<DeviceClaimConfiguration> configs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            configs.add(new DeviceClaimConfigurationBuilder(template)
                    .withRequests(i == 0 ? List.of() : List.of("req" + i))
                    .editOpaque().withParameters(Map.of(prefix + "_config" + i, "true")).endOpaque().build());
        }
        return configs;
    }

    // https://github.com/kubernetes/kubernetes/issues/131513 was fixed for 1.34 and not backported.
    @Test
    @DisplayName("blocks new pod after force-delete [KubeletMinVersion:1.34]")
    @Tag("KubeletMinVersion:1.34")
    void blocksNewPodAfterForceDelete() throws Exception {
        // A force-deleted pod and its claim are gone from the API before the kubelet tore the pod down. A new claim
        // and pod of the same names must not start until the old claim is unprepared: the kubelet has to notice that
        // the claim it still holds is not the new one.
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        String node = nodes.nodeNames().get(0);
        pod.getSpec().setNodeSelector(Map.of("kubernetes.io/hostname", node));
        ResourceClaim oldClaim = (ResourceClaim) b.create(claim, pod).get(0);
        b.testPod(pod);

        // Failing NodeUnprepareResources stands in for a long grace period. Upstream fails it right after the force
        // delete, which is early enough for a kubelet that notices the pod is gone within its 60 s reconcile period;
        // the embedded kubelet unprepares at once, so the failure goes in first.
        MethodInstance unprepare = new MethodInstance(node, MethodInstance.NODE_UNPREPARE_RESOURCES_V1);
        driver.fail(unprepare, true);
        f.by("Force-delete claim and pod");
        f.client().pods().inNamespace(f.namespace()).withName(pod.getMetadata().getName()).withGracePeriod(0)
                .delete();
        assertThat(f.client().pods().inNamespace(f.namespace()).withName(pod.getMetadata().getName()).get())
                .as("the force-deleted pod").isNull();

        // the claim may take a bit longer because of the allocation and the finalizer
        f.client().resources(ResourceClaim.class).inNamespace(f.namespace()).withName(claim.getMetadata().getName())
                .withGracePeriod(0).delete();
        Waits.until("claim " + claim.getMetadata().getName() + " gone", f.timeouts().podDelete())
                .until(() -> f.client().resources(ResourceClaim.class).inNamespace(f.namespace())
                        .withName(claim.getMetadata().getName()).get() == null);
        assertThat(driver.node(node).preparedClaims()).as("Old claim should still be prepared.")
                .containsExactly(new ClaimId(oldClaim.getMetadata().getName(), oldClaim.getMetadata().getUid()));

        f.by("Re-creating the same claim and pod");
        claim.getMetadata().setResourceVersion(null);
        claim.getMetadata().setUid(null);
        pod.getMetadata().setResourceVersion(null);
        pod.getMetadata().setUid(null);
        ResourceClaim newClaim = (ResourceClaim) b.create(claim, pod).get(0);

        // NodeUnprepareResources stays blocked until the new pod's NodePrepareResources failed, so the race happens
        String expected = "old ResourceClaim with same name " + oldClaim.getMetadata().getName()
                + " and different UID " + oldClaim.getMetadata().getUid() + " still exists";
        Waits.until("event FailedPrepareDynamicResources: " + expected, f.timeouts().podStart().multipliedBy(2))
                .until(() -> f.client().v1().events().inNamespace(f.namespace()).list().getItems().stream()
                        .filter(event -> "Pod".equals(event.getInvolvedObject().getKind())
                                && pod.getMetadata().getName().equals(event.getInvolvedObject().getName())
                                && "FailedPrepareDynamicResources".equals(event.getReason()))
                        .map(Event::getMessage).anyMatch(message -> message.contains(expected)));

        driver.fail(unprepare, false);
        b.testPod(pod);
        // the new pod must not have started before the old claim was unprepared
        assertThat(driver.node(node).preparedClaims())
                .as("Only new claim should be prepared now because new pod is running.")
                .containsExactly(new ClaimId(newClaim.getMetadata().getName(), newClaim.getMetadata().getUid()));
    }

    @Test
    @DisplayName("DaemonSet with admin access")
    void daemonSetWithAdminAccess() throws Exception {
        // admin access needs the namespace label
        f.client().namespaces().withName(f.namespace()).edit(namespace -> new NamespaceBuilder(namespace)
                .editMetadata().addToLabels("resource.kubernetes.io/admin-access", "true").endMetadata().build());

        Builder.PodWithTemplate inline = b.podInline();
        inline.template().getSpec().getSpec().getDevices().getRequests().get(0).getExactly().setAdminAccess(true);
        // the daemon runs only on the node that has the driver
        String nodeName = nodes.nodeNames().get(0);
        PodSpec podSpec = new PodSpecBuilder(inline.pod().getSpec())
                .withNodeSelector(Map.of("kubernetes.io/hostname", nodeName)).withRestartPolicy("Always").build();
        DaemonSet daemonSet = new DaemonSetBuilder().withNewMetadata().withName("monitoring-ds").endMetadata()
                .withNewSpec().withNewSelector().addToMatchLabels("app", "monitoring").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", "monitoring").endMetadata()
                .withSpec(podSpec).endTemplate().endSpec().build();

        List<HasMetadata> created = b.create(inline.template(), daemonSet);
        assertThat(((ResourceClaimTemplate) created.get(0)).getSpec().getSpec().getDevices().getRequests().get(0)
                .getExactly().getAdminAccess())
                .as("AdminAccess field was cleared. This test depends on the DRAAdminAccess feature.").isTrue();
        DaemonSet ds = (DaemonSet) created.get(1);

        Waits.until("DaemonSet pod should be running on node " + nodeName + " but isn't", f.timeouts().podStart())
                .until(() -> daemonPodsAvailableOnlyOn(ds, List.of(nodeName)));
        DaemonSetStatus status = f.client().apps().daemonSets().inNamespace(f.namespace())
                .withName(ds.getMetadata().getName()).get().getStatus();
        assertThat(List.of(status.getCurrentNumberScheduled(), status.getNumberReady()))
                .as("daemon status: DesiredScheduled %d, CurrentScheduled %d, Ready %d",
                        status.getDesiredNumberScheduled(), status.getCurrentNumberScheduled(),
                        status.getNumberReady())
                .containsOnly(status.getDesiredNumberScheduled());
    }

    /**
     * Upstream's {@code CheckDaemonPodOnNodes}: exactly one available pod of the DaemonSet on each of the nodes, and
     * none elsewhere.
     */
    private boolean daemonPodsAvailableOnlyOn(DaemonSet ds, List<String> nodeNames) {
        Map<String, Integer> podsPerNode = new HashMap<>();
        for (Pod pod : f.client().pods().inNamespace(f.namespace()).list().getItems()) {
            boolean controlled = pod.getMetadata().getOwnerReferences().stream().anyMatch(owner ->
                    Boolean.TRUE.equals(owner.getController()) && ds.getMetadata().getUid().equals(owner.getUid()));
            if (controlled && pod.getMetadata().getDeletionTimestamp() == null && ready(pod)) {
                podsPerNode.merge(pod.getSpec().getNodeName(), 1, Integer::sum);
            }
        }
        return nodeNames.stream().allMatch(node -> podsPerNode.getOrDefault(node, 0) == 1)
                && podsPerNode.size() == nodeNames.size();
    }

    /** {@code IsPodAvailable} with the DaemonSet's {@code minReadySeconds} of 0: the pod is ready. */
    private static boolean ready(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getConditions() != null && pod.getStatus().getConditions()
                .stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
