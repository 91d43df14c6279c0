package io.kdra.e2e;

import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group C: the kubelet with one to four nodes, each with a node-local pool of one device. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class KubeletPerNodeSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 4);
    final Driver driver = Driver.create(f, nodes, Resources.driverResources(1));
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("must manage ResourceSlices")
    void mustManageResourceSlices() {
        f.by("check if ResourceSlice object(s) exist on the API server");
        Map<String, String> nodeUids = new HashMap<>();
        for (String nodeName : nodes.nodeNames()) {
            Node node = f.client().nodes().withName(nodeName).get();
            nodeUids.put(nodeName, node.getMetadata().getUid());
        }
        Callable<List<ResourceSlice>> slices = driver.getSlices();
        Callable<Boolean> everyNodeHasItsSlice = () -> {
            List<ResourceSlice> current = slices.call();
            return nodeUids.entrySet().stream().allMatch(node -> current.stream()
                    .anyMatch(slice -> isNodeSlice(slice, node.getKey(), node.getValue())));
        };
        Waits.until("one ResourceSlice per node", Duration.ofSeconds(20))
                .until(everyNodeHasItsSlice, is(true));
        Waits.during("one ResourceSlice per node", f.timeouts().pending()).until(everyNodeHasItsSlice, is(true));
        // removal of the node slices is checked by the driver's teardown
    }

    /** Owned by the node as controller, for its node only, pool named after it, exactly device-00. */
    private boolean isNodeSlice(ResourceSlice slice, String nodeName, String nodeUid) {
        List<OwnerReference> owners = slice.getMetadata().getOwnerReferences();
        boolean ownedByNode = owners.stream().anyMatch(owner -> "v1".equals(owner.getApiVersion())
                && "Node".equals(owner.getKind()) && nodeName.equals(owner.getName())
                && nodeUid.equals(owner.getUid()) && Boolean.TRUE.equals(owner.getController())
                && owner.getBlockOwnerDeletion() == null);
        ResourceSliceSpec spec = slice.getSpec();
        List<Device> devices = spec.getDevices();
        return ownedByNode && driver.name().equals(spec.getDriver()) && nodeName.equals(spec.getNodeName())
                && spec.getNodeSelector() == null && spec.getAllNodes() == null
                && nodeName.equals(spec.getPool().getName()) && spec.getPool().getResourceSliceCount() == 1
                && devices.size() == 1 && "device-00".equals(devices.get(0).getName())
                && devices.get(0).getAttributes().isEmpty() && devices.get(0).getCapacity().isEmpty();
    }

    @Test
    @DisplayName("supports init containers with external claims")
    void supportsInitContainersWithExternalClaims() throws Exception {
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        Container main = pod.getSpec().getContainers().get(0);
        // the pod starts only if this succeeds
        pod.getSpec().setInitContainers(List.of(new ContainerBuilder(main).withName(main.getName() + "-init")
                .withCommand("sh", "-c", "env | grep user_a=b").build()));
        b.create(pod, claim);
        b.testPod(pod);
    }

    @Test
    @DisplayName("removes reservation from claim when pod is done")
    void removesReservationFromClaimWhenPodIsDone() {
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        pod.getSpec().getContainers().get(0).setCommand(List.of("true"));
        b.create(claim, pod);

        f.by("waiting for pod to finish");
        Pods.waitForNoLongerRunning(f, pod);
        f.by("waiting for claim to be unreserved");
        Waits.until("reservation should have been removed", f.timeouts().podDelete())
                .until(() -> f.client().resources(ResourceClaim.class).inNamespace(f.namespace())
                        .withName(claim.getMetadata().getName()).get().getStatus().getReservedFor(), empty());
    }

    @Test
    @DisplayName("deletes generated claims when pod is done")
    void deletesGeneratedClaimsWhenPodIsDone() {
        Builder.PodWithTemplate inline = b.podInline();
        inline.pod().getSpec().getContainers().get(0).setCommand(List.of("true"));
        b.create(inline.template(), inline.pod());

        f.by("waiting for pod to finish");
        Pods.waitForNoLongerRunning(f, inline.pod());
        f.by("waiting for claim to be deleted");
        Waits.until("claim should have been deleted", f.timeouts().podDelete())
                .until(() -> f.client().resources(ResourceClaim.class).inNamespace(f.namespace()).list().getItems(),
                        empty());
    }

    @Test
    @DisplayName("does not delete generated claims when pod is restarting")
    void doesNotDeleteGeneratedClaimsWhenPodIsRestarting() {
        Builder.PodWithTemplate inline = b.podInline();
        inline.pod().getSpec().getContainers().get(0).setCommand(List.of("sh", "-c", "sleep 1; exit 1"));
        inline.pod().getSpec().setRestartPolicy("Always");
        b.create(inline.template(), inline.pod());

        f.by("waiting for pod to restart twice");
        Callable<Pod> pod = Pods.get(f, inline.pod());
        Waits.until("a container restarted twice", f.timeouts().podStartSlow())
                .until(() -> pod.call().getStatus().getContainerStatuses().stream()
                        .map(ContainerStatus::getRestartCount).anyMatch(count -> count != null && count >= 2));
    }
}
