package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.runtime.RawExtension;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group R: API-side rules of the control plane, with a driver on one node that publishes a network pool of
 * ten devices and has no kubelet plugin sockets.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] control plane")
@Tag("sig-node")
@Tag("DRA")
class ControlPlaneSpecs {

    static final String ADMIN_ACCESS_MESSAGE = "admin access to devices requires the "
            + "`resource.kubernetes.io/admin-access: true` label on the containing namespace";
    private static final Duration RETRY = Duration.ofSeconds(30);

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.networkResources(10, false)).withKubelet(false);
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("validate ResourceClaimTemplate and ResourceClaim for admin access")
    void validateAdminAccess() {
        ResourceClaim claim = b.externalClaim();
        claim.getSpec().getDevices().getRequests().get(0).getExactly().setAdminAccess(true);
        ResourceClaimTemplate template = b.podInline().template();
        template.getSpec().getSpec().getDevices().getRequests().get(0).getExactly().setAdminAccess(true);
        var claims = f.client().resources(ResourceClaim.class).inNamespace(f.namespace());
        var templates = f.client().resources(ResourceClaimTemplate.class).inNamespace(f.namespace());

        Waits.until("claim with admin access rejected", RETRY).until(() -> {
            claims.withName(claim.getMetadata().getName()).delete();
            return createError(() -> claims.resource(claim).create());
        }, message -> message.contains(ADMIN_ACCESS_MESSAGE));
        Waits.until("template with admin access rejected", RETRY).until(() -> {
            templates.withName(template.getMetadata().getName()).delete();
            return createError(() -> templates.resource(template).create());
        }, message -> message.contains(ADMIN_ACCESS_MESSAGE));

        f.client().namespaces().withName(f.namespace()).edit(namespace -> new NamespaceBuilder(namespace)
                .editMetadata().addToLabels("resource.kubernetes.io/admin-access", "true").endMetadata().build());
        Waits.until("claim with admin access accepted", RETRY)
                .until(() -> createError(() -> claims.resource(claim).create()), String::isEmpty);
        Waits.until("template with admin access accepted", RETRY)
                .until(() -> createError(() -> templates.resource(template).create()), String::isEmpty);
    }

    @Test
    @DisplayName("truncates the name of a generated resource claim")
    void truncatesGeneratedClaimName() throws Exception {
        Builder.PodWithTemplate inline = b.podInline();
        Pod pod = inline.pod();
        pod.getMetadata().setName("p".repeat(63));
        pod.getSpec().getResourceClaims().get(0).setName("c".repeat(63));
        pod.getSpec().getContainers().get(0).getResources().getClaims().get(0).setName("c".repeat(63));
        b.create(inline.template(), pod);

        b.testPod(pod);
    }

    @Test
    @DisplayName("supports count/resourceclaims.resource.k8s.io ResourceQuota")
    void supportsClaimCountQuota() {
        ResourceClaim claim = new ResourceClaimBuilder().withNewMetadata().withName("claim-0")
                .withNamespace(f.namespace()).endMetadata().withNewSpec().withNewDevices().addNewRequest()
                .withName("req-0").withNewExactly().withDeviceClassName(b.className()).endExactly().endRequest()
                .endDevices().endSpec().build();
        var claims = f.client().resources(ResourceClaim.class).inNamespace(f.namespace());
        claims.resource(claim).create();

        String resourceName = "count/resourceclaims.resource.k8s.io";
        Map<String, Quantity> one = Map.of(resourceName, new Quantity("1"));
        ResourceQuota quota = f.client().resourceQuotas().inNamespace(f.namespace()).resource(new ResourceQuotaBuilder()
                .withNewMetadata().withName("object-count").endMetadata().withNewSpec().withHard(one).endSpec()
                .build()).create();

        Waits.until("the quota counts the existing claim", f.timeouts().podStart()).until(() -> {
            ResourceQuota current = f.client().resourceQuotas().inNamespace(f.namespace())
                    .withName(quota.getMetadata().getName()).get();
            return current.getStatus() != null && one.equals(current.getStatus().getHard())
                    && one.equals(current.getStatus().getUsed());
        });

        // a new name each time, so that a create that erroneously succeeds is not followed by "already exists"
        claim.getMetadata().setName(null);
        claim.getMetadata().setGenerateName("claim-1-");
        Waits.until("creating a second claim not allowed", RETRY)
                .until(() -> createError(() -> claims.resource(claim).create()), message -> message.contains(
                        "exceeded quota: object-count, requested: count/resourceclaims.resource.k8s.io=1, used: "
                                + "count/resourceclaims.resource.k8s.io=1, limited: "
                                + "count/resourceclaims.resource.k8s.io=1"));
    }

    @Test
    @DisplayName("must be impossible for a node ServiceAccount to update the non-node ResourceClaim.Status.Devices "
            + "once allocated [FeatureGate:DRAResourceClaimDeviceStatus]")
    @Tag("FeatureGate:DRAResourceClaimDeviceStatus")
    void nodeServiceAccountCannotUpdateNonNodeDeviceStatus() throws Exception {
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod);
        // waits for the claim to be allocated and the pod to be scheduled
        b.testPod(pod);

        ResourceClaim allocated = allocatedClaim(f, claim);
        Pod scheduled = f.client().pods().inNamespace(f.namespace()).withName(pod.getMetadata().getName()).get();

        f.by("Setting the device status a first time");
        DeviceRequestAllocationResult result = allocated.getStatus().getAllocation().getDevices().getResults().get(0);
        List<AllocatedDeviceStatus> devices = new ArrayList<>(allocated.getStatus().getDevices());
        devices.add(deviceStatus(result, true, "a", "c", "d", "foo", "bar", "inf1", "10.9.8.0/24", "2001:db8::/64",
                "bc:1c:b6:3e:b8:25"));
        allocated.getStatus().setDevices(devices);

        // updates the claim from the driver on the node of the pod
        var plugin = driver.nodes().get(scheduled.getSpec().getNodeName());
        assertThat(plugin).as("plugin on node %s of the pod", scheduled.getSpec().getNodeName()).isNotNull();
        KubernetesClientException error = catchThrowableOfType(KubernetesClientException.class,
                () -> plugin.plugin().updateStatus(allocated));
        assertThat(error).as("expected invalid error").isNotNull();
        assertThat(error.getCode()).as("expected invalid error: %s", error.getMessage()).isEqualTo(422);
        assertThat(error.getMessage()).contains("cannot arbitrary-node:update");
    }

    @Test
    @DisplayName("must be possible for a control-plane ServiceAccount to update the ResourceClaim.Status.Devices "
            + "once allocated [FeatureGate:DRAResourceClaimDeviceStatus]")
    @Tag("FeatureGate:DRAResourceClaimDeviceStatus")
    void controlPlaneServiceAccountCanUpdateDeviceStatus() throws Exception {
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod);
        b.testPod(pod);

        f.by("Creating a ServiceAccount and Role to update ResourceClaim status");
        String saName = "claim-status-updater-sa";
        String roleName = "claim-status-updater-role";
        String bindingName = "claim-status-updater-binding";
        KubernetesClient admin = f.client();
        admin.serviceAccounts().inNamespace(f.namespace()).resource(new ServiceAccountBuilder().withNewMetadata()
                .withName(saName).endMetadata().build()).create();
        ClusterRole role = new ClusterRoleBuilder().withNewMetadata().withName(roleName).endMetadata()
                .addNewRule().withApiGroups("resource.k8s.io").withResources("resourceclaims/status")
                .withVerbs("update", "patch").endRule()
                // also needs get to fetch the claim for the update
                .addNewRule().withApiGroups("resource.k8s.io").withResources("resourceclaims").withVerbs("get")
                .endRule().build();
        admin.resource(role).create();
        f.cleanup("delete ClusterRole " + roleName, () -> admin.rbac().clusterRoles().withName(roleName).delete());
        admin.resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(bindingName).endMetadata()
                .addNewSubject().withKind("ServiceAccount").withName(saName).withNamespace(f.namespace())
                .endSubject().withNewRoleRef().withKind("ClusterRole").withName(roleName)
                .withApiGroup("rbac.authorization.k8s.io").endRoleRef().build()).create();
        f.cleanup("delete ClusterRoleBinding " + bindingName,
                () -> admin.rbac().clusterRoleBindings().withName(bindingName).delete());
        KubernetesClient saClient = new KubernetesClientBuilder().withConfig(new ConfigBuilder(admin.getConfiguration())
                .withImpersonateUsername("system:serviceaccount:" + f.namespace() + ":" + saName).build()).build();
        f.cleanup("close the ServiceAccount's client", saClient::close);

        ResourceClaim allocated = allocatedClaim(f, claim);
        DeviceRequestAllocationResult result = allocated.getStatus().getAllocation().getDevices().getResults().get(0);

        f.by("Setting the device status a first time (via ServiceAccount without proper RBAC) for driver "
                + b.driverName());
        List<AllocatedDeviceStatus> devices = new ArrayList<>(allocated.getStatus().getDevices());
        devices.add(deviceStatus(result, false, "a", "c", "d", "foo", "bar", "inf1", "10.9.8.0/24", "2001:db8::/64",
                "bc:1c:b6:3e:b8:25"));
        allocated.getStatus().setDevices(devices);
        var saClaims = saClient.resources(ResourceClaim.class).inNamespace(f.namespace());
        // a plain 403 would mean the RBAC rules are not in effect yet
        Waits.until("DRA validation rejects the update", Duration.ofSeconds(15)).until(() -> {
            KubernetesClientException e = catchThrowableOfType(KubernetesClientException.class,
                    () -> saClaims.resource(allocated).updateStatus());
            return e != null && e.getCode() == 422 && e.getMessage().contains("is forbidden");
        });

        f.by("Setting the device status a first time (via ServiceAccount with RBAC with specific driver name) for "
                + "driver " + b.driverName());
        admin.resource(new ClusterRoleBuilder(role).editMetadata().withResourceVersion(null).endMetadata()
                .addToRules(new PolicyRuleBuilder().withApiGroups("resource.k8s.io")
                        .withResources("resourceclaims/driver")
                        .withVerbs("arbitrary-node:update", "arbitrary-node:patch")
                        .withResourceNames(b.driverName()).build()).build()).update();
        AtomicReference<ResourceClaim> updated = new AtomicReference<>();
        Waits.until("status update after adding the RBAC rule", Duration.ofSeconds(15)).until(() -> {
            updated.set(saClaims.resource(allocated).updateStatus());
            return true;
        });
        assertThat(updated.get().getStatus().getDevices()).isEqualTo(allocated.getStatus().getDevices());

        f.by("Updating the device status (via ServiceAccount with RBAC allowing all drivers)");
        admin.resource(new ClusterRoleBuilder(role).editMetadata().withResourceVersion(null).endMetadata()
                .addToRules(new PolicyRuleBuilder().withApiGroups("resource.k8s.io")
                        .withResources("resourceclaims/driver")
                        .withVerbs("arbitrary-node:update", "arbitrary-node:patch").build()).build()).update();
        ResourceClaim second = updated.get();
        second.getStatus().getDevices().set(0, deviceStatus(result, false, "e", "g", "h", "bar", "foo", "inf2",
                "10.9.8.1/24", "2001:db8::1/64", "bc:1c:b6:3e:b8:26"));
        AtomicReference<ResourceClaim> updatedAgain = new AtomicReference<>();
        Waits.until("status update after the wildcard RBAC rule", Duration.ofSeconds(15)).until(() -> {
            updatedAgain.set(saClaims.resource(second).updateStatus());
            return true;
        });
        assertThat(updatedAgain.get().getStatus().getDevices()).isEqualTo(second.getStatus().getDevices());

        f.by("Verifying the final status with admin client");
        assertThat(allocatedClaim(f, claim).getStatus().getDevices()).isEqualTo(second.getStatus().getDevices());
    }

    static ResourceClaim allocatedClaim(Framework f, ResourceClaim claim) {
        ResourceClaim allocated = f.client().resources(ResourceClaim.class).inNamespace(f.namespace())
                .withName(claim.getMetadata().getName()).get();
        assertThat(allocated).isNotNull();
        assertThat(allocated.getStatus().getAllocation()).isNotNull();
        assertThat(allocated.getStatus().getAllocation().getDevices().getResults()).hasSize(1);
        return allocated;
    }

    /** A device status entry for the allocated device, with a condition, data and network data. */
    static AllocatedDeviceStatus deviceStatus(DeviceRequestAllocationResult result, boolean withShareId,
            String type, String message, String reason, String dataKey, String dataValue, String interfaceName,
            String ipv4, String ipv6, String hardwareAddress) {
        return new AllocatedDeviceStatusBuilder().withDriver(result.getDriver()).withPool(result.getPool())
                .withDevice(result.getDevice()).withShareID(withShareId ? result.getShareID() : null)
                .withConditions(new ConditionBuilder().withType(type).withStatus("True").withMessage(message)
                        .withReason(reason)
                        .withLastTransitionTime(Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()).build())
                .withData(new RawExtension(Map.of(dataKey, dataValue)))
                .withNewNetworkData().withInterfaceName(interfaceName).withIps(ipv4, ipv6)
                .withHardwareAddress(hardwareAddress).endNetworkData().build();
    }

    /** The message of the create's failure, empty when it succeeded. */
    static String createError(Runnable create) {
        try {
            create.run();
            return "";
        } catch (KubernetesClientException e) {
            return e.getMessage();
        }
    }
}
