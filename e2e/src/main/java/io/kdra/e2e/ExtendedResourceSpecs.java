package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerExtendedResourceRequest;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodExtendedResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group O: extended resources backed by DRA on one node with a network-attached pool of ten devices. The
 * explicit extended resource {@code <driver>/resource-<i>} is backed by the class {@code <className>-resource-<i>}
 * each spec creates, the implicit one {@code deviceclass.resource.kubernetes.io/<className>} by the builder's class.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] [FeatureGate:DRAExtendedResource] [Feature:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("FeatureGate:DRAExtendedResource")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DynamicResourceAllocation")
class ExtendedResourceSpecs {

    static final String IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/";
    static final String DEVICE_PLUGIN_ONLY = "needs a real node: it deploys the sample device plugin DaemonSet, which"
            + " the embedded cluster's simulated kubelet cannot serve (no device plugin manager, no node allocatable"
            + " for extended resources)";

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.networkResources(10, false));
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("must run a pod with extended resource with resource quota [KubeletMinVersion:1.35]"
            + " [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.35")
    void mustRunAPodWithExtendedResourceWithResourceQuota() throws Exception {
        // As upstream's class 0, one class carries both names and serves the external claim too, so that all five
        // devices count under each of the four quota names.
        String explicit = b.extendedResourceName("0");
        DeviceClass explicitClass = b.classWithExtendedResource(explicit);
        String implicit = IMPLICIT_PREFIX + explicitClass.getMetadata().getName();
        Map<String, Quantity> hard = new LinkedHashMap<>();
        hard.put("count/resourceclaims.resource.k8s.io", new Quantity("10"));
        hard.put("requests." + explicit, new Quantity("10"));
        hard.put("requests." + implicit, new Quantity("10"));
        hard.put(explicitClass.getMetadata().getName() + ".deviceclass.resource.k8s.io/devices", new Quantity("10"));
        ResourceQuota quota = new ResourceQuotaBuilder().withNewMetadata().withName("test-quota").endMetadata()
                .withNewSpec().withHard(hard).endSpec().build();
        b.create(explicitClass, quota);

        Pod pod = b.pod();
        Map<String, String> res = Map.of(explicit, "1", implicit, "1");
        Container main = pod.getSpec().getContainers().get(0);
        request(main, res);
        pod.getSpec().setInitContainers(List.of(
                initContainer(main, "-init", List.of("sh", "-c", "env|grep request_0=true"), res, false),
                initContainer(main, "-sidecar", List.of("sh", "-c", "env|grep container_1_request_0=true; sleep 1"),
                        res, true),
                initContainer(main, "-init-1", List.of("sh", "-c", "env|grep request_0=true"), res, false)));
        b.create(pod);
        Pods.waitForRunning(f, pod);
        testContainerEnv(pod, main.getName(), "container_3_request_0", "true", "container_3_request_1", "true");

        ResourceClaim claim = b.externalClaim();
        claim.getSpec().getDevices().getRequests().get(0).getExactly()
                .setDeviceClassName(explicitClass.getMetadata().getName());
        Pod pod2 = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod2);
        testPod(pod2);

        // 5 devices: the external claim's one, and the special claim's four (sidecar and main container, two
        // resources each; the other init containers reuse theirs); the pod's own requests count two of them already.
        String consumedDevices = "5";
        Map<String, Quantity> used = new LinkedHashMap<>();
        used.put("count/resourceclaims.resource.k8s.io", new Quantity("2"));
        used.put("requests." + explicit, new Quantity(consumedDevices));
        used.put("requests." + implicit, new Quantity(consumedDevices));
        used.put(explicitClass.getMetadata().getName() + ".deviceclass.resource.k8s.io/devices",
                new Quantity(consumedDevices));
        Callable<ResourceQuota> current = () -> f.client().resourceQuotas().inNamespace(f.namespace())
                .withName("test-quota").get();
        Waits.until("quota status", f.timeouts().podStart()).untilAsserted(() -> {
            ResourceQuota status = current.call();
            assertThat(status.getStatus().getHard()).isEqualTo(hard);
            assertThat(status.getStatus().getUsed()).isEqualTo(used);
        });
    }

    @Test
    @DisplayName("must run a pod with both implicit and explicit extended resource with one container two resources"
            + " [KubeletMinVersion:1.35] [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.35")
    void mustRunAPodWithBothImplicitAndExplicitExtendedResource() throws Exception {
        b.create(explicitClasses(1));
        extendedResourceTest(List.of(IMPLICIT_PREFIX + b.className(), b.extendedResourceName("0")),
                "container_3_request_0", "true", "container_3_request_1", "true");
    }

    @Test
    @DisplayName("must run a pod with explicit extended resource with one container one resource"
            + " [KubeletMinVersion:1.34] [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.34")
    void mustRunAPodWithExplicitExtendedResourceWithOneContainerOneResource() throws Exception {
        b.create(explicitClasses(1));
        extendedResourceTest(List.of(b.extendedResourceName("0")), "container_3_request_0", "true");
    }

    @Test
    @DisplayName("must run a pod with implicit extended resource with one container one resource"
            + " [KubeletMinVersion:1.35] [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.35")
    void mustRunAPodWithImplicitExtendedResourceWithOneContainerOneResource() throws Exception {
        extendedResourceTest(List.of(IMPLICIT_PREFIX + b.className()), "container_3_request_0", "true");
    }

    @Test
    @DisplayName("must run a pod with explicit extended resource with one container three resources"
            + " [KubeletMinVersion:1.34] [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.34")
    void mustRunAPodWithExplicitExtendedResourceWithOneContainerThreeResources() throws Exception {
        b.create(explicitClasses(3));
        extendedResourceTest(List.of(b.extendedResourceName("0"), b.extendedResourceName("1"),
                b.extendedResourceName("2")),
                "container_3_request_0", "true", "container_3_request_1", "true", "container_3_request_2", "true");
    }

    @Test
    @DisplayName("must run a pod with explicit extended resource with three containers one resource each"
            + " [KubeletMinVersion:1.34] [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.34")
    void mustRunAPodWithExplicitExtendedResourceWithThreeContainersOneResourceEach() throws Exception {
        Pod pod = threeContainers();
        for (int i = 0; i < 3; i++) {
            request(pod.getSpec().getContainers().get(i), Map.of(b.extendedResourceName(Integer.toString(i)), "1"));
        }
        List<HasMetadata> objects = new ArrayList<>(List.of(explicitClasses(3)));
        objects.add(pod);
        b.create(objects.toArray(HasMetadata[]::new));
        Pods.waitForRunning(f, pod);
        for (int i = 0; i < 3; i++) {
            testContainerEnv(pod, pod.getSpec().getContainers().get(i).getName(),
                    "container_" + i + "_request_0", "true");
        }
    }

    @Test
    @DisplayName("must run a pod with explicit extended resource with three containers multiple resources each"
            + " [KubeletMinVersion:1.34] [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.34")
    void mustRunAPodWithExplicitExtendedResourceWithThreeContainersMultipleResourcesEach() throws Exception {
        Pod pod = threeContainers();
        List<Container> containers = pod.getSpec().getContainers();
        request(containers.get(0), Map.of(b.extendedResourceName("0"), "1"));
        request(containers.get(1), Map.of(b.extendedResourceName("1"), "1", b.extendedResourceName("2"), "1"));
        request(containers.get(2), Map.of(b.extendedResourceName("3"), "1", b.extendedResourceName("4"), "1",
                b.extendedResourceName("5"), "1"));
        List<HasMetadata> objects = new ArrayList<>(List.of(explicitClasses(6)));
        objects.add(pod);
        b.create(objects.toArray(HasMetadata[]::new));
        Pods.waitForRunning(f, pod);
        testContainerEnv(pod, containers.get(0).getName(), "container_0_request_0", "true");
        testContainerEnv(pod, containers.get(1).getName(),
                "container_1_request_0", "true", "container_1_request_1", "true");
        testContainerEnv(pod, containers.get(2).getName(),
                "container_2_request_0", "true", "container_2_request_1", "true", "container_2_request_2", "true");
    }

    @Test
    @DisplayName("must cleanup extended resource claims when pods complete [KubeletMinVersion:1.34]"
            + " [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.34")
    void mustCleanupExtendedResourceClaimsWhenPodsComplete() {
        runExtendedClaimCleanup(
                "echo 'Pod started with extended resource'; sleep 2; echo 'Pod completed successfully'",
                Pods.SUCCEEDED, "completes");
    }

    @Test
    @DisplayName("must cleanup extended resource claims when pods fail [KubeletMinVersion:1.34]"
            + " [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.34")
    void mustCleanupExtendedResourceClaimsWhenPodsFail() {
        runExtendedClaimCleanup(
                "echo 'Pod started with extended resource'; sleep 2; echo 'Pod failing now'; exit 1",
                Pods.FAILED, "fails");
    }

    @Test
    @DisplayName("process extended resources after device plugin uninstall [KubeletMinVersion:1.35]"
            + " [FeatureGate:DynamicResourceAllocation] [Serial]")
    @Tag("KubeletMinVersion:1.35")
    @Tag("Serial")
    @Disabled(DEVICE_PLUGIN_ONLY)
    void processExtendedResourcesAfterDevicePluginUninstall() {
        // Upstream: the sample device plugin gives the node an allocatable of 2 for the resource; after its
        // DaemonSet is deleted and the allocatable dropped to 0, a pod requesting 1 is served by DRA
        // (container_0_request_0=true).
    }

    @Test
    @DisplayName("must prevent overcommitment of extended resources [KubeletMinVersion:1.34]"
            + " [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.34")
    void mustPreventOvercommitmentOfExtendedResources() throws Exception {
        b.create(explicitClasses(1));
        Map<String, String> all = Map.of(b.extendedResourceName("0"), "10");
        Pod pod1 = b.pod();
        request(pod1.getSpec().getContainers().get(0), all);
        b.create(pod1);
        Pods.waitForRunning(f, pod1);

        f.by("Check that pod is processed by the DRA driver");
        testContainerEnv(pod1, pod1.getSpec().getContainers().get(0).getName(), "container_0_request_0", "true");

        Pod pod2 = b.pod();
        request(pod2.getSpec().getContainers().get(0), all);
        b.create(pod2);
        Pods.waitForUnschedulable(f, pod2);

        b.deletePodAndWaitForNotFound(pod1);
        Pods.waitForRunning(f, pod2);
        testContainerEnv(pod2, pod2.getSpec().getContainers().get(0).getName(), "container_0_request_0", "true");
    }

    @Test
    @DisplayName("must reject pod with invalid extended resource name [KubeletMinVersion:1.34]"
            + " [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.34")
    void mustRejectPodWithInvalidExtendedResourceName() {
        Pod pod = b.pod();
        request(pod.getSpec().getContainers().get(0), Map.of("invalid_resource_name", "1"));

        assertThatThrownBy(() -> f.client().pods().inNamespace(f.namespace()).resource(pod).create())
                .as("pod with invalid extended resource name should be rejected")
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getStatus().getReason()).isEqualTo("Invalid");
                });
    }

    @Test
    @DisplayName("must accurately populate ExtendedResourceClaimStatus [KubeletMinVersion:1.34]"
            + " [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.34")
    void mustAccuratelyPopulateExtendedResourceClaimStatus() throws Exception {
        Pod pod = b.pod();
        String resource0 = b.extendedResourceName("0");
        String resource1 = b.extendedResourceName("1");
        Map<String, String> res = Map.of(resource0, "2", resource1, "1");
        request(pod.getSpec().getContainers().get(0), res);
        List<HasMetadata> objects = new ArrayList<>(List.of(explicitClasses(2)));
        objects.add(pod);
        b.create(objects.toArray(HasMetadata[]::new));
        Pods.waitForRunning(f, pod);

        f.by("Check that pod is processed by the DRA driver");
        testContainerEnv(pod, pod.getSpec().getContainers().get(0).getName(),
                "container_0_request_0", "true", "container_0_request_1", "true");

        PodExtendedResourceClaimStatus status = Pods.get(f, pod).call().getStatus().getExtendedResourceClaimStatus();
        assertThat(status).isNotNull();
        assertThat(status.getResourceClaimName()).isNotEmpty();
        List<ContainerExtendedResourceRequest> mappings = status.getRequestMappings();
        assertThat(mappings).hasSize(res.size());
        for (int i = 0; i < mappings.size(); i++) {
            ContainerExtendedResourceRequest mapping = mappings.get(i);
            assertThat(mapping.getContainerName()).isEqualTo(pod.getSpec().getContainers().get(0).getName());
            assertThat(res).containsKey(mapping.getResourceName());
            assertThat(mapping.getRequestName()).isEqualTo("container-0-request-" + i);
        }
    }

    @Test
    @DisplayName("must run a pod with extended resource requesting zero [KubeletMinVersion:1.34]"
            + " [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.34")
    void mustRunAPodWithExtendedResourceRequestingZero() throws Exception {
        b.create(explicitClasses(1));
        Pod pod = b.pod();
        request(pod.getSpec().getContainers().get(0), Map.of(b.extendedResourceName("0"), "0"));
        b.create(pod);
        Pods.waitForRunning(f, pod);

        f.by("Check that pod is not processed by the DRA driver");
        assertThat(Pods.get(f, pod).call().getStatus().getExtendedResourceClaimStatus()).isNull();
    }

    @Test
    @DisplayName("must process extended resource after Device Class creation [KubeletMinVersion:1.34]"
            + " [FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.34")
    void mustProcessExtendedResourceAfterDeviceClassCreation() throws Exception {
        String resourceName = b.extendedResourceName("1");
        Pod pod = b.pod();
        request(pod.getSpec().getContainers().get(0), Map.of(resourceName, "1"));
        b.create(pod);
        Pods.waitForUnschedulable(f, pod);

        f.by("Creating Device Class after pod creation");
        b.create(b.classWithExtendedResource(resourceName));
        Pods.waitForRunning(f, pod);

        f.by("Check that pod is processed by the DRA driver");
        testContainerEnv(pod, pod.getSpec().getContainers().get(0).getName(), "container_0_request_0", "true");
    }

    @Test
    @DisplayName("must prefer device plugin over DRA when both advertise the same resource on a node"
            + " [KubeletMinVersion:1.35] [FeatureGate:DynamicResourceAllocation] [Serial]")
    @Tag("KubeletMinVersion:1.35")
    @Tag("Serial")
    @Disabled(DEVICE_PLUGIN_ONLY)
    void mustPreferDevicePluginOverDra() {
        // Upstream: with the sample device plugin on the DRA node and a class backing the same resource, a pod
        // requesting 1 runs without status.extendedResourceClaimStatus: DRA serves a node only where its
        // allocatable for the resource is 0.
    }

    /** The explicit classes {@code <className>-resource-<i>} for {@code <driver>/resource-<i>}, i below count. */
    private DeviceClass[] explicitClasses(int count) {
        DeviceClass[] classes = new DeviceClass[count];
        for (int i = 0; i < count; i++) {
            classes[i] = b.classWithExtendedResource(b.extendedResourceName(Integer.toString(i)));
        }
        return classes;
    }

    /**
     * A pod whose main container and three init containers (an init container asking for twice as much, a sidecar,
     * a second init container) request each resource; the init containers check that they got devices.
     */
    private void extendedResourceTest(List<String> resourceNames, String... containerEnv) throws Exception {
        Pod pod = b.pod();
        Map<String, String> res = new LinkedHashMap<>();
        Map<String, String> res2 = new LinkedHashMap<>();
        for (String resourceName : resourceNames) {
            res.put(resourceName, "1");
            res2.put(resourceName, "2");
        }
        Container main = pod.getSpec().getContainers().get(0);
        request(main, res);
        pod.getSpec().setInitContainers(List.of(
                // each must succeed for the pod to start
                initContainer(main, "-init", List.of("sh", "-c", "env|grep container_1_request_0=true"), res2, false),
                initContainer(main, "-sidecar", List.of("sh", "-c",
                        "while true; do env; env|grep container_1_request_0=true; echo $?; sleep 5; done"), res, true),
                initContainer(main, "-init-1", List.of("sh", "-c", "env|grep container_3_request_0=true"), res,
                        false)));
        b.create(pod);
        Pods.waitForRunning(f, pod);
        testContainerEnv(pod, main.getName(), containerEnv);
    }

    private void runExtendedClaimCleanup(String shellScript, String terminalPhase, String cleanupMessage) {
        Pod pod = b.pod();
        Container container = pod.getSpec().getContainers().get(0);
        request(container, Map.of(b.extendedResourceName("0"), "1"));
        container.setCommand(List.of("/bin/sh"));
        container.setArgs(List.of("-c", shellScript));
        pod.getSpec().setRestartPolicy("Never");

        f.by("Creating the pod with extended resource");
        b.create(explicitClasses(1));
        b.create(pod);
        Pods.waitForRunning(f, pod);

        f.by("Verifying extended resource claim exists");
        Callable<Pod> current = Pods.get(f, pod);
        String[] claimName = new String[1];
        Waits.until("extended resource claim should be created", Duration.ofMinutes(1)).until(() -> {
            Pod updated = current.call();
            if (updated == null || updated.getStatus().getExtendedResourceClaimStatus() == null) {
                return null;
            }
            claimName[0] = updated.getStatus().getExtendedResourceClaimStatus().getResourceClaimName();
            return claim(claimName[0]);
        }, notNullValue());

        f.by("Waiting for the pod to reach terminal state");
        Waits.until("pod " + pod.getMetadata().getName() + " " + terminalPhase, f.timeouts().podStart())
                .until(Pods.phase(f, pod), is(terminalPhase));

        f.by("Verifying extended resource claim is cleaned up");
        Waits.until("extended resource claim should be automatically deleted when pod " + cleanupMessage,
                Duration.ofMinutes(1)).until(() -> claim(claimName[0]), nullValue());
    }

    private ResourceClaim claim(String name) {
        return f.client().resources(ResourceClaim.class).inNamespace(f.namespace()).withName(name).get();
    }

    private Pod threeContainers() {
        Pod pod = b.pod();
        Container first = pod.getSpec().getContainers().get(0);
        pod.getSpec().setContainers(new ArrayList<>(List.of(
                new ContainerBuilder(first).withName("container0").build(),
                new ContainerBuilder(first).withName("container1").build(),
                new ContainerBuilder(first).withName("container2").build())));
        return pod;
    }

    private static Container initContainer(Container main, String nameSuffix, List<String> command,
            Map<String, String> amounts, boolean sidecar) {
        Container init = new ContainerBuilder(main).withName(main.getName() + nameSuffix).withCommand(command).build();
        request(init, amounts);
        if (sidecar) {
            init.setRestartPolicy("Always");
        }
        return init;
    }

    /** Sets the container's requests and limits to the amounts (extended resources cannot be overcommitted). */
    private static void request(Container container, Map<String, String> amounts) {
        Map<String, Quantity> quantities = new LinkedHashMap<>();
        amounts.forEach((name, amount) -> quantities.put(name, new Quantity(amount)));
        container.setResources(new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                .withRequests(quantities).withLimits(new LinkedHashMap<>(quantities)).build());
    }

    private void testContainerEnv(Pod pod, String container, String... env) throws Exception {
        Builder.testContainerEnv(f, pod, container, false, env);
    }

    private void testPod(Pod pod) throws Exception {
        b.testPod(pod);
    }
}
