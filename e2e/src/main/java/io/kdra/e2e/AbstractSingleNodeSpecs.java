package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.framework.Builder;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The specs of upstream's {@code singleNodeTests}: one node with a node-local pool of one device, the class parameters
 * {@code {"x":"y"}}. Upstream runs them twice, under "control plane" (the driver does not register with the kubelet,
 * pods only get scheduled) and under "kubelet ... on single node" (pods run and get the devices' environment); the
 * subclasses are those two groups.
 */
abstract class AbstractSingleNodeSpecs {

    private static final int NUM_PODS = 5;

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    // every spec gets its own driver instance; one device, so that pods must take turns
    final Driver driver = Driver.create(f, nodes, Resources.driverResources(1)).withKubelet(withKubelet());
    // the parameters must be set before the class is created
    final Builder b = Builder.create(f, driver).classParameters("{\"x\":\"y\"}");

    /**
     * Whether the driver registers with the kubelet, so that pods run (the "kubelet" group) or only get scheduled.
     * Read while this base class is constructed: a constant.
     */
    abstract boolean withKubelet();

    /** The class parameters' and the claim parameters' variables. */
    private String[] expectedEnv() {
        List<String> env = new ArrayList<>(List.of("admin_x", "y"));
        env.addAll(b.parametersEnv());
        return env.toArray(String[]::new);
    }

    @Test
    @DisplayName("supports claim and class parameters")
    void supportsClaimAndClassParameters() throws Exception {
        Builder.PodWithTemplate inline = b.podInline();
        b.create(inline.pod(), inline.template());
        b.testPod(inline.pod(), expectedEnv());
    }

    @Test
    @DisplayName("supports reusing resources")
    void supportsReusingResources() throws Exception {
        List<Pod> pods = new ArrayList<>();
        List<HasMetadata> objects = new ArrayList<>();
        for (int i = 0; i < NUM_PODS; i++) {
            Builder.PodWithTemplate inline = b.podInline();
            pods.add(inline.pod());
            objects.add(inline.pod());
            objects.add(inline.template());
        }
        b.create(objects.toArray(HasMetadata[]::new));

        // The order is unknown; all that matters is that each gets the device eventually, after the others freed it.
        inParallel(pods, pod -> {
            b.testPod(pod, expectedEnv());
            f.client().resource(pod).delete();
            Pods.waitForNotFound(f, pod, f.timeouts().podStartSlow().multipliedBy(NUM_PODS));
        });
    }

    @Test
    @DisplayName("supports sharing a claim concurrently")
    void supportsSharingAClaimConcurrently() throws Exception {
        List<HasMetadata> objects = new ArrayList<>();
        objects.add(b.externalClaim());
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < NUM_PODS; i++) {
            Pod pod = b.podExternal();
            pods.add(pod);
            objects.add(pod);
        }
        b.create(objects.toArray(HasMetadata[]::new));

        inParallel(pods, pod -> b.testPod(pod, expectedEnv()));
    }

    @Test
    @DisplayName("retries pod scheduling after creating device class")
    void retriesPodSchedulingAfterCreatingDeviceClass() throws Exception {
        Builder.PodWithTemplate inline = b.podInline();
        String className = inline.template().getSpec().getSpec().getDevices().getRequests().get(0).getExactly()
                .getDeviceClassName();
        DeviceClass existing = f.client().resources(DeviceClass.class).withName(className).get();
        String missingClassName = className + "-b";
        inline.template().getSpec().getSpec().getDevices().getRequests().get(0).getExactly()
                .setDeviceClassName(missingClassName);
        b.create(inline.template(), inline.pod());

        Pods.waitForUnschedulable(f, inline.pod());

        b.create(new DeviceClassBuilder().withNewMetadata().withName(missingClassName).endMetadata()
                .withSpec(existing.getSpec()).build());
        b.testPod(inline.pod(), expectedEnv());
    }

    @Test
    @DisplayName("retries pod scheduling after updating device class")
    void retriesPodSchedulingAfterUpdatingDeviceClass() throws Exception {
        Builder.PodWithTemplate inline = b.podInline();

        // First the class matches no devices.
        String className = inline.template().getSpec().getSpec().getDevices().getRequests().get(0).getExactly()
                .getDeviceClassName();
        DeviceClass original = f.client().resources(DeviceClass.class).withName(className).get();
        DeviceClass matchesNothing = f.client().resource(new DeviceClassBuilder(original).editSpec()
                .withSelectors().addNewSelector().withNewCel().withExpression("false").endCel().endSelector()
                .endSpec().build()).update();

        b.create(inline.template(), inline.pod());
        Pods.waitForUnschedulable(f, inline.pod());

        f.by("unblock the pod");
        f.client().resource(new DeviceClassBuilder(matchesNothing).editSpec()
                .withSelectors(original.getSpec().getSelectors()).endSpec().build()).update();
        b.testPod(inline.pod(), expectedEnv());
    }

    @Test
    @DisplayName("runs a pod without a generated resource claim")
    void runsAPodWithoutAGeneratedResourceClaim() {
        Pod pod = b.create(b.podInline().pod());

        // Without its template the pod would wait for its claim forever; the status says that it needs none.
        pod.getStatus().setResourceClaimStatuses(List.of(new PodResourceClaimStatusBuilder()
                .withName(pod.getSpec().getResourceClaims().get(0).getName()).build()));
        f.client().pods().inNamespace(f.namespace()).resource(pod).updateStatus();
        Pods.waitForRunning(f, pod);
    }

    @Test
    @DisplayName("supports simple pod referencing inline resource claim")
    void supportsSimplePodReferencingInlineResourceClaim() throws Exception {
        Builder.PodWithTemplate inline = b.podInline();
        b.create(inline.pod(), inline.template());
        b.testPod(inline.pod());
    }

    @Test
    @DisplayName("supports inline claim referenced by multiple containers")
    void supportsInlineClaimReferencedByMultipleContainers() throws Exception {
        Builder.PodWithTemplate inline = b.podInlineMultiple();
        b.create(inline.pod(), inline.template());
        b.testPod(inline.pod());
    }

    @Test
    @DisplayName("supports simple pod referencing external resource claim")
    void supportsSimplePodReferencingExternalResourceClaim() throws Exception {
        Pod pod = b.podExternal();
        b.create(b.externalClaim(), pod);
        b.testPod(pod);
    }

    @Test
    @DisplayName("supports external claim referenced by multiple pods")
    void supportsExternalClaimReferencedByMultiplePods() throws Exception {
        List<Pod> pods = List.of(b.podExternal(), b.podExternal(), b.podExternal());
        b.create(b.externalClaim());
        b.create(pods.toArray(HasMetadata[]::new));
        for (Pod pod : pods) {
            b.testPod(pod);
        }
    }

    @Test
    @DisplayName("supports external claim referenced by multiple containers of multiple pods")
    void supportsExternalClaimReferencedByMultipleContainersOfMultiplePods() throws Exception {
        List<Pod> pods = List.of(b.podExternalMultiple(), b.podExternalMultiple(), b.podExternalMultiple());
        b.create(b.externalClaim());
        b.create(pods.toArray(HasMetadata[]::new));
        for (Pod pod : pods) {
            b.testPod(pod);
        }
    }

    @Test
    @DisplayName("supports init containers")
    void supportsInitContainers() throws Exception {
        Builder.PodWithTemplate inline = b.podInline();
        Container main = inline.pod().getSpec().getContainers().get(0);
        // the pod starts only if this succeeds
        inline.pod().getSpec().setInitContainers(List.of(new ContainerBuilder(main).withName(main.getName() + "-init")
                .withCommand("sh", "-c", "env | grep user_a=b").build()));
        b.create(inline.pod(), inline.template());
        b.testPod(inline.pod());
    }

    @Test
    @DisplayName("must deallocate after use")
    void mustDeallocateAfterUse() throws Exception {
        Pod pod = b.podExternal();
        ResourceClaim claim = b.externalClaim();
        b.create(claim, pod);

        Callable<ResourceClaim> stored = () -> f.client().resources(ResourceClaim.class).inNamespace(f.namespace())
                .withName(claim.getMetadata().getName()).get();
        Waits.until("claim allocated", f.timeouts().podDelete())
                .until(() -> stored.call().getStatus() != null && stored.call().getStatus().getAllocation() != null);

        b.testPod(pod);

        f.by("deleting pod " + f.namespace() + "/" + pod.getMetadata().getName());
        f.client().resource(pod).delete();

        f.by("waiting for claim to get deallocated");
        Waits.until("claim deallocated", f.timeouts().podDelete())
                .until(() -> stored.call().getStatus() == null || stored.call().getStatus().getAllocation() == null);
    }

    /** A check per pod, all at once (upstream's goroutines); after all ended, fails with the first failure. */
    private static void inParallel(List<Pod> pods, PodCheck check) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(pods.size());
        try {
            List<Callable<Void>> checks = pods.stream().<Callable<Void>>map(pod -> () -> {
                check.run(pod);
                return null;
            }).toList();
            AssertionError failure = null;
            for (Future<Void> done : executor.invokeAll(checks)) {
                try {
                    done.get();
                } catch (ExecutionException e) {
                    if (failure == null) {
                        failure = new AssertionError("a pod's check failed: " + e.getCause().getMessage(), e.getCause());
                    } else {
                        failure.addSuppressed(e.getCause());
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            executor.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface PodCheck {
        void run(Pod pod) throws Exception;
    }
}
