package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kdra.apiserver.auth.UserInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeviceStatusAuthorizationTest extends ServerTestBase {

    private static final String DRIVER = "gpu.example.com";

    /** A claim allocated on node-1 (a node-local device), written by the admin. */
    private static ResourceClaim allocated(String ns) {
        ResourceClaim claim = fixture.client.resource(new ResourceClaimBuilder().withNewMetadata().withName("c")
                .withNamespace(ns).endMetadata().withNewSpec().withNewDevices().addNewRequest().withName("r")
                .withNewExactly().withDeviceClassName("class").endExactly().endRequest().endDevices().endSpec()
                .build()).create();
        claim.setStatus(new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder()
                .withNewAllocation().withNewDevices().addNewResult().withRequest("r").withDriver(DRIVER)
                .withPool("node-1").withDevice("gpu-0").endResult().endDevices().withNodeSelector(
                        new io.fabric8.kubernetes.api.model.NodeSelectorBuilder().addNewNodeSelectorTerm()
                                .addNewMatchField().withKey("metadata.name").withOperator("In").withValues("node-1")
                                .endMatchField().endNodeSelectorTerm().build()).endAllocation()
                .build());
        return fixture.client.resource(claim).updateStatus();
    }

    private static ResourceClaim withDeviceStatus(ResourceClaim claim, String interfaceName) {
        claim.getStatus().setDevices(List.of(new AllocatedDeviceStatusBuilder().withDriver(DRIVER).withPool("node-1")
                .withDevice("gpu-0").withNewNetworkData().withInterfaceName(interfaceName).endNetworkData().build()));
        return claim;
    }

    private static KubernetesClient serviceAccount(String ns, String node) {
        return fixture.clientFor(fixture.server.issueToken(new UserInfo("system:serviceaccount:" + ns + ":driver", "",
                List.of("system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"),
                node == null ? Map.of() : Map.of(UserInfo.NODE_NAME_EXTRA, List.of(node)))));
    }

    private static void grant(String ns, String role, String verb, List<String> resourceNames) {
        fixture.client.resource(new ClusterRoleBuilder().withNewMetadata().withName(role).endMetadata()
                .addNewRule().withApiGroups("resource.k8s.io").withResources("resourceclaims/driver")
                .withVerbs(verb).withResourceNames(resourceNames).endRule().build()).create();
        fixture.client.resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(role).endMetadata()
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(role)
                .endRoleRef().addNewSubject().withKind("ServiceAccount").withName("driver").withNamespace(ns)
                .endSubject().build()).create();
    }

    @Test
    void aWriterWithoutTheDriverPermissionCannotChangeDeviceStatus() {
        String ns = fixture.namespace();
        ResourceClaim claim = allocated(ns);
        KubernetesClient driver = serviceAccount(ns, null);

        assertThatThrownBy(() -> driver.resource(withDeviceStatus(claim, "inf1")).updateStatus())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getStatus().getMessage()).isEqualTo("ResourceClaim.resource.k8s.io \"c\" is invalid: "
                            + "status.devices: Forbidden: changing status.devices requires "
                            + "resource=\"resourceclaims/driver\", verb=\"[arbitrary-node:update]\" permission: "
                            + "resourceclaims.resource.k8s.io \"gpu.example.com\" is forbidden: User "
                            + "\"system:serviceaccount:" + ns + ":driver\" cannot arbitrary-node:update resource "
                            + "\"resourceclaims/driver\" in API group \"resource.k8s.io\" in the namespace \"" + ns
                            + "\"");
                });
        assertThat(fixture.client.resource(withDeviceStatus(claim, "inf1")).updateStatus().getStatus().getDevices())
                .as("the admin may").hasSize(1);
    }

    @Test
    void anArbitraryNodeGrantForTheDriverAllowsIt() {
        String ns = fixture.namespace();
        ResourceClaim claim = allocated(ns);
        grant(ns, ns + "-other", "arbitrary-node:update", List.of("other.example.com"));
        KubernetesClient driver = serviceAccount(ns, null);
        assertThatThrownBy(() -> driver.resource(withDeviceStatus(claim, "inf1")).updateStatus())
                .isInstanceOf(KubernetesClientException.class);

        grant(ns, ns + "-driver", "arbitrary-node:update", List.of(DRIVER));
        ResourceClaim updated = driver.resource(withDeviceStatus(claim, "inf1")).updateStatus();
        assertThat(updated.getStatus().getDevices().get(0).getNetworkData().getInterfaceName()).isEqualTo("inf1");
        assertThat(driver.resource(updated).updateStatus().getStatus().getDevices())
                .as("an unchanged device status needs no permission").hasSize(1);
    }

    @Test
    void anAssociatedNodeGrantCoversOnlyTheNodeOfTheAllocation() {
        String ns = fixture.namespace();
        ResourceClaim claim = allocated(ns);
        grant(ns, ns + "-node", "associated-node:update", List.of(DRIVER));

        assertThatThrownBy(() -> serviceAccount(ns, "node-2").resource(withDeviceStatus(claim, "inf1"))
                .updateStatus()).isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(
                        e.getStatus().getMessage()).contains("cannot arbitrary-node:update"));
        ResourceClaim updated = serviceAccount(ns, "node-1").resource(withDeviceStatus(claim, "inf1"))
                .updateStatus();
        assertThat(updated.getStatus().getDevices()).hasSize(1);
    }

    @Test
    void deallocatingDropsTheDeviceStatusOfTheDeallocatedDevices() {
        String ns = fixture.namespace();
        ResourceClaim claim = fixture.client.resource(withDeviceStatus(allocated(ns), "inf1")).updateStatus();
        KubernetesClient controllerManager = fixture.clientFor(fixture.server.issueToken(new UserInfo(
                "system:kube-controller-manager", "", List.of("system:authenticated"), Map.of())));

        claim.getStatus().setAllocation(null);
        ResourceClaim deallocated = controllerManager.resource(claim).updateStatus();

        assertThat(deallocated.getStatus().getAllocation()).isNull();
        assertThat(deallocated.getStatus().getDevices()).isEmpty();
    }
}
