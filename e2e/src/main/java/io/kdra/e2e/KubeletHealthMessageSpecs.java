package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.NodePlugin;
import io.kdra.framework.Nodes;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import io.kdra.plugin.HealthStatus;
import io.kdra.testdriver.DeviceHealthUpdate;
import java.time.Duration;
import java.util.List;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group U: health messages of the driver reach the pod status. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class KubeletHealthMessageSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.networkResources(10, false));
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("should report device health with custom messages [KubeletMinVersion:1.36] "
            + "[FeatureGate:ResourceHealthStatusMessage] [Beta] [FeatureGate:ResourceHealthStatus]")
    @Tag("KubeletMinVersion:1.36")
    @Tag("FeatureGate:ResourceHealthStatusMessage")
    @Tag("Beta")
    @Tag("FeatureGate:ResourceHealthStatus")
    void shouldReportDeviceHealthWithCustomMessages() throws Exception {
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod);
        b.testPod(pod);

        DeviceRequestAllocationResult result = HealthSpecs.allocatedDevice(f, claim);
        NodePlugin plugin = driver.node(nodes.nodeNames().get(0));
        String statusName = "claim:" + Builder.EXTERNAL_POD_CLAIM_NAME;
        record Step(HealthStatus health, String message) {
        }
        for (Step step : List.of(
                new Step(HealthStatus.HEALTHY, "Device operating normally, temperature: 45°C"),
                new Step(HealthStatus.UNHEALTHY, "ECC error count exceeded threshold (15 errors in last hour)"),
                new Step(HealthStatus.UNHEALTHY, "Critical: Memory corruption detected"),
                new Step(HealthStatus.HEALTHY, "Recovered after reset, all diagnostics passed"))) {
            f.by("reporting " + step.health() + ": " + step.message());
            plugin.plugin().updateDeviceHealth(new DeviceHealthUpdate(result.getPool(), result.getDevice(),
                    step.health(), step.message()));
            String expected = HealthSpecs.healthName(step.health()) + ": " + step.message();
            Waits.until("health of " + statusName + " in the pod status", Duration.ofSeconds(30))
                    .until(() -> HealthSpecs.deviceHealth(f, pod, statusName, driver.name(), true),
                            Matchers.equalTo(expected));
        }
    }
}
