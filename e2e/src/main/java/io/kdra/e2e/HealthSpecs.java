package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceClaim;
import io.fabric8.kubernetes.api.model.ResourceHealth;
import io.fabric8.kubernetes.api.model.ResourceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
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
import io.kdra.plugin.HealthStatus;
import io.kdra.testdriver.DeviceHealthUpdate;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * health.go: the kubelet opens the device-health stream on the newest DRAResourceHealth version both sides serve, and
 * the health the driver reports shows up in the pod status.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] [FeatureGate:ResourceHealthStatus] "
        + "[KubeletMinVersion:1.36]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:ResourceHealthStatus")
@Tag("KubeletMinVersion:1.36")
class HealthSpecs {

    final Framework f = Framework.create("dra-health");
    final Nodes nodes = Nodes.create(f, 1, 1);

    @Test
    @DisplayName("with a driver which serves all health API versions must reflect device health changes in the pod "
            + "status")
    void allHealthApiVersions() throws Exception {
        testHealthTransitions(Driver.instance(f));
    }

    @Test
    @DisplayName("with a driver which only serves the v1alpha1 health API must reflect device health changes in the "
            + "pod status")
    void onlyV1alpha1HealthApi() throws Exception {
        // like a driver which shipped before the v1 API existed
        testHealthTransitions(Driver.instance(f).healthV1(false));
    }

    @Test
    @DisplayName("with a driver which only serves the v1 health API must reflect device health changes in the pod "
            + "status [KubeletMinVersion:1.37]")
    @Tag("KubeletMinVersion:1.37")
    void onlyV1HealthApi() throws Exception {
        // like a driver which dropped v1alpha1; older kubelets have no v1 client
        testHealthTransitions(Driver.instance(f).healthV1alpha1(false));
    }

    private void testHealthTransitions(Driver driver) throws Exception {
        driver.run(nodes, Resources.driverResourcesNow(nodes, 1));
        Builder b = Builder.now(f, driver);
        io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod);
        b.testPod(pod);

        // exactly one node was selected, so the pod runs there
        String nodeName = nodes.nodeNames().get(0);
        NodePlugin plugin = driver.node(nodeName);
        DeviceRequestAllocationResult result = allocatedDevice(f, claim);

        f.by("Verifying the negotiated health API version");
        String expectedMethod = expectedHealthMethod(driver);
        Waits.until("health stream on " + expectedMethod, Duration.ofSeconds(60))
                .until(() -> driver.callCount(new MethodInstance(nodeName, expectedMethod)), greaterThan(0L));
        String otherMethod = expectedMethod.equals(MethodInstance.NODE_WATCH_RESOURCES_V1ALPHA1)
                ? MethodInstance.NODE_WATCH_RESOURCES_V1 : MethodInstance.NODE_WATCH_RESOURCES_V1ALPHA1;
        assertThat(driver.callCount(new MethodInstance(nodeName, otherMethod)))
                .as("unexpected health stream on %s", otherMethod).isZero();

        // the kubelet publishes the health under the claim's name in the container, with the request if one is set
        ResourceClaim claimRef = pod.getSpec().getContainers().get(0).getResources().getClaims().get(0);
        String statusName = "claim:" + claimRef.getName()
                + (claimRef.getRequest() == null || claimRef.getRequest().isEmpty() ? "" : "/" + claimRef.getRequest());
        for (HealthStatus health : new HealthStatus[] {HealthStatus.HEALTHY, HealthStatus.UNHEALTHY,
                HealthStatus.HEALTHY}) {
            f.by("Setting device health to " + healthName(health));
            plugin.plugin().updateDeviceHealth(new DeviceHealthUpdate(result.getPool(), result.getDevice(), health,
                    ""));
            Waits.until("device health " + healthName(health), Duration.ofSeconds(60))
                    .until(() -> deviceHealth(f, pod, statusName, driver.name(), false), equalTo(healthName(health)));
        }
    }

    /** The most recent version the driver serves and the kubelet has a client for. */
    private String expectedHealthMethod(Driver driver) {
        if (!driver.healthV1()) {
            return MethodInstance.NODE_WATCH_RESOURCES_V1ALPHA1;
        }
        if (!driver.healthV1alpha1()) {
            return MethodInstance.NODE_WATCH_RESOURCES_V1;
        }
        return f.backend().kubeletVersion().atLeast(1, 37) ? MethodInstance.NODE_WATCH_RESOURCES_V1
                : MethodInstance.NODE_WATCH_RESOURCES_V1ALPHA1;
    }

    /** The first device allocated for the claim. */
    static DeviceRequestAllocationResult allocatedDevice(Framework f,
            io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim claim) {
        io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim allocated = f.client()
                .resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class)
                .inNamespace(f.namespace()).withName(claim.getMetadata().getName()).get();
        assertThat(allocated.getStatus().getAllocation()).as("claim allocation").isNotNull();
        return allocated.getStatus().getAllocation().getDevices().getResults().get(0);
    }

    static String healthName(HealthStatus health) {
        return switch (health) {
            case HEALTHY -> "Healthy";
            case UNHEALTHY -> "Unhealthy";
            default -> "Unknown";
        };
    }

    /**
     * The health of the driver's device in the pod's {@code allocatedResourcesStatus} under this name, with
     * {@code ": <message>"} if asked, or {@code NotFound}. The kubelet names the device by its first CDI device ID,
     * which starts with the driver name for the test driver, as does the {@code <driver>/<pool>/<device>} fallback.
     */
    static String deviceHealth(Framework f, Pod pod, String statusName, String driverName, boolean withMessage)
            throws Exception {
        Pod current = Pods.get(f, pod).call();
        if (current == null || current.getStatus() == null) {
            return "NotFound";
        }
        for (ContainerStatus container : current.getStatus().getContainerStatuses()) {
            for (ResourceStatus status : container.getAllocatedResourcesStatus()) {
                if (!statusName.equals(status.getName())) {
                    continue;
                }
                for (ResourceHealth health : status.getResources()) {
                    if (health.getResourceID() != null && health.getResourceID().startsWith(driverName + "/")) {
                        return withMessage ? health.getHealth() + ": " + health.getMessage() : health.getHealth();
                    }
                }
            }
        }
        return "NotFound";
    }
}
