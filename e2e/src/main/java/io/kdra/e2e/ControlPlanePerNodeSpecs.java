package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.NodePlugin;
import io.kdra.framework.Nodes;
import io.kdra.framework.Resources;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group S: per-node rules of the control plane, with a driver on one to four nodes that publishes one
 * node-local device per node and has no kubelet plugin sockets.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] control plane")
@Tag("sig-node")
@Tag("DRA")
class ControlPlanePerNodeSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 4);
    final Driver driver = Driver.create(f, nodes, Resources.driverResources(1)).withKubelet(false);
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("must apply per-node permission checks")
    void mustApplyPerNodePermissionChecks() {
        // every operation uses the client of a kubelet plugin on a node that does not exist, so nothing interferes
        // when a slice actually gets created
        String fictionalNodeName = "dra-fictional-node";
        assertThat(nodes.nodeNames()).doesNotContain(fictionalNodeName);
        KubernetesClient fictionalNodeClient = driver.impersonateKubeletPlugin(new PodBuilder().withNewMetadata()
                .withName(fictionalNodeName + "-dra-plugin").withNamespace(f.namespace()).withUid("12345")
                .endMetadata().withNewSpec().withNodeName(fictionalNodeName).endSpec().build());
        String realNodeName = nodes.nodeNames().get(0);
        KubernetesClient realNodeClient = driver.node(realNodeName).client();
        KubernetesClient admin = f.client();

        ResourceSlice fictionalNodeSlice = new ResourceSliceBuilder().withNewMetadata()
                .withName(fictionalNodeName + "-slice").endMetadata().withNewSpec().withNodeName(fictionalNodeName)
                .withDriver("dra.example.com").withNewPool().withName("some-pool").withResourceSliceCount(1L)
                .endPool().endSpec().build();
        f.cleanup("delete slice " + fictionalNodeSlice.getMetadata().getName(),
                () -> admin.resources(ResourceSlice.class).withName(fictionalNodeSlice.getMetadata().getName())
                        .delete());

        // create with different clients, keep it in the end
        mustFailToCreate(realNodeClient, "real plugin", fictionalNodeSlice, denial(realNodeName, fictionalNodeSlice));
        mustDelete(fictionalNodeClient, "fictional plugin",
                mustCreate(fictionalNodeClient, "fictional plugin", fictionalNodeSlice));
        ResourceSlice created = mustCreate(admin, "admin", fictionalNodeSlice);

        // update with different clients
        mustFailToUpdate(realNodeClient, "real plugin", created, denial(realNodeName, created));
        created = mustUpdate(fictionalNodeClient, "fictional plugin", created);
        created = mustUpdate(admin, "admin", created);

        // delete with different clients
        mustFailToDelete(realNodeClient, "real plugin", created, denial(realNodeName, created));
        mustDelete(fictionalNodeClient, "fictional plugin", created);

        // the same for a slice that is not associated with a node
        ResourceSlice clusterSlice = new ResourceSliceBuilder().withNewMetadata().withName("cluster-slice")
                .endMetadata().withNewSpec().withAllNodes(true).withDriver("another.example.com").withNewPool()
                .withName("cluster-pool").withResourceSliceCount(1L).endPool().endSpec().build();
        f.cleanup("delete slice cluster-slice",
                () -> admin.resources(ResourceSlice.class).withName("cluster-slice").delete());

        mustFailToCreate(realNodeClient, "real plugin", clusterSlice, denial(realNodeName, clusterSlice));
        mustFailToCreate(fictionalNodeClient, "fictional plugin", clusterSlice,
                denial(fictionalNodeName, clusterSlice));
        ResourceSlice createdClusterSlice = mustCreate(admin, "admin", clusterSlice);

        mustFailToUpdate(realNodeClient, "real plugin", createdClusterSlice, denial(realNodeName, createdClusterSlice));
        mustFailToUpdate(fictionalNodeClient, "fictional plugin", createdClusterSlice,
                denial(fictionalNodeName, createdClusterSlice));
        createdClusterSlice = mustUpdate(admin, "admin", createdClusterSlice);

        mustFailToDelete(realNodeClient, "real plugin", createdClusterSlice, denial(realNodeName, createdClusterSlice));
        mustFailToDelete(fictionalNodeClient, "fictional plugin", createdClusterSlice,
                denial(fictionalNodeName, createdClusterSlice));
        mustDelete(admin, "admin", createdClusterSlice);
    }

    @Test
    @DisplayName("must be possible for a node ServiceAccount to update the node ResourceClaim.Status.Devices once "
            + "allocated [FeatureGate:DRAResourceClaimDeviceStatus]")
    @Tag("FeatureGate:DRAResourceClaimDeviceStatus")
    void nodeServiceAccountCanUpdateNodeDeviceStatus() throws Exception {
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod);
        // waits for the claim to be allocated and the pod to be scheduled
        b.testPod(pod);

        ResourceClaim allocated = ControlPlaneSpecs.allocatedClaim(f, claim);
        Pod scheduled = f.client().pods().inNamespace(f.namespace()).withName(pod.getMetadata().getName()).get();
        DeviceRequestAllocationResult result = allocated.getStatus().getAllocation().getDevices().getResults().get(0);

        f.by("Setting the device status a first time");
        List<AllocatedDeviceStatus> devices = new ArrayList<>(allocated.getStatus().getDevices());
        devices.add(ControlPlaneSpecs.deviceStatus(result, true, "a", "c", "d", "foo", "bar", "inf1", "10.9.8.0/24",
                "2001:db8::/64", "bc:1c:b6:3e:b8:25"));
        allocated.getStatus().setDevices(devices);

        // updates the claim from the driver on the node of the pod
        NodePlugin plugin = driver.nodes().get(scheduled.getSpec().getNodeName());
        assertThat(plugin).as("plugin on node %s of the pod", scheduled.getSpec().getNodeName()).isNotNull();
        ResourceClaim updated = plugin.plugin().updateStatus(allocated);
        assertThat(updated.getStatus().getDevices()).isEqualTo(allocated.getStatus().getDevices());

        f.by("Updating the device status");
        updated.getStatus().getDevices().set(0, ControlPlaneSpecs.deviceStatus(result, true, "e", "g", "h", "bar",
                "foo", "inf2", "10.9.8.1/24", "2001:db8::1/64", "bc:1c:b6:3e:b8:26"));
        ResourceClaim updatedAgain = plugin.plugin().updateStatus(updated);
        assertThat(updatedAgain.getStatus().getDevices()).isEqualTo(updated.getStatus().getDevices());

        assertThat(ControlPlaneSpecs.allocatedClaim(f, claim).getStatus().getDevices())
                .isEqualTo(updated.getStatus().getDevices());
    }

    /** The message of the upstream driver's ValidatingAdmissionPolicy for a plugin writing another node's slice. */
    private static String denial(String nodeName, ResourceSlice slice) {
        String objectNode = slice.getSpec().getNodeName();
        return String.format("this user running on node '%s' may not modify ", nodeName)
                + (objectNode == null || objectNode.isEmpty() ? "cluster resourceslices"
                        : String.format("resourceslices on node '%s'", objectNode));
    }

    private static ResourceSlice mustCreate(KubernetesClient client, String clientName, ResourceSlice slice) {
        ResourceSlice[] created = new ResourceSlice[1];
        assertThatCode(() -> created[0] = client.resource(copy(slice)).create())
                .as("CREATE: %s + %s", clientName, slice.getMetadata().getName()).doesNotThrowAnyException();
        return created[0];
    }

    private static ResourceSlice mustUpdate(KubernetesClient client, String clientName, ResourceSlice slice) {
        ResourceSlice[] updated = new ResourceSlice[1];
        assertThatCode(() -> updated[0] = client.resource(copy(slice)).update())
                .as("UPDATE: %s + %s", clientName, slice.getMetadata().getName()).doesNotThrowAnyException();
        return updated[0];
    }

    private static void mustDelete(KubernetesClient client, String clientName, ResourceSlice slice) {
        assertThatCode(() -> assertThat(client.resources(ResourceSlice.class).withName(slice.getMetadata().getName())
                .delete()).isNotEmpty())
                .as("DELETE: %s + %s", clientName, slice.getMetadata().getName()).doesNotThrowAnyException();
    }

    private static void mustFailToCreate(KubernetesClient client, String clientName, ResourceSlice slice,
            String message) {
        assertThatThrownBy(() -> client.resource(copy(slice)).create())
                .as("CREATE: %s + %s", clientName, slice.getMetadata().getName()).hasMessageContaining(message);
    }

    private static void mustFailToUpdate(KubernetesClient client, String clientName, ResourceSlice slice,
            String message) {
        assertThatThrownBy(() -> client.resource(copy(slice)).update())
                .as("UPDATE: %s + %s", clientName, slice.getMetadata().getName()).hasMessageContaining(message);
    }

    private static void mustFailToDelete(KubernetesClient client, String clientName, ResourceSlice slice,
            String message) {
        assertThatThrownBy(() -> client.resources(ResourceSlice.class).withName(slice.getMetadata().getName())
                .delete()).as("DELETE: %s + %s", clientName, slice.getMetadata().getName())
                .hasMessageContaining(message);
    }

    private static ResourceSlice copy(ResourceSlice slice) {
        return new ResourceSliceBuilder(slice).build();
    }
}
