package io.kdra.e2e;

import static io.kdra.e2e.NodeSpecSupport.DRIVER_NAME;
import static io.kdra.e2e.ResourceHealthSpecs.HEALTH_UPDATE_TIMEOUT;
import static org.hamcrest.Matchers.equalTo;

import io.fabric8.kubernetes.api.model.Pod;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import io.kdra.framework.NodeSuite;
import io.kdra.framework.Pods;
import io.kdra.framework.Waits;
import io.kdra.plugin.HealthStatus;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.DeviceHealthUpdate;
import io.kdra.testdriver.ExamplePlugin;
import java.io.IOException;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * e2e_node/dra_test.go, "Resource Health › Resource Health with ShareID": the health of a device allocated with a
 * share ID shows in the pod status through Healthy, Unhealthy and Healthy. Runs with both gates its labels ask for
 * (ResourceHealthStatus, DRAConsumableCapacity); upstream's before-each skips when either is on, so upstream never
 * runs it where its labels select it.
 */
@DraSpec
@NodeSuite
@DisplayName("[sig-node] [DRA] [Feature:DynamicResourceAllocation] [FeatureGate:DynamicResourceAllocation]"
        + " Resource Health [Serial] Resource Health with ShareID [FeatureGate:ResourceHealthStatus] [Beta]"
        + " [FeatureGate:DRAConsumableCapacity] [Beta] [Serial]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DynamicResourceAllocation")
@Tag("FeatureGate:ResourceHealthStatus")
@Tag("FeatureGate:DRAConsumableCapacity")
@Tag("Beta")
@Tag("Serial")
class ResourceHealthWithShareIdSpecs {

    final Framework f = Framework.create("dra-node");
    final NodeSpecSupport node = NodeSpecSupport.create(f);

    @Test
    @DisplayName("should reflect device health changes for devices with ShareID")
    void shouldReflectDeviceHealthChangesForDevicesWithShareId() throws IOException {
        f.by("Starting the test driver");
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);

        node.awaitRegistered("wait for registration to complete", kubeletPlugin);

        String poolName = "shareid-health-pool";
        String deviceName = "shareid-health-device";
        String claimName = "shareid-health-claim";
        Pod pod = node.createHealthTestPodAndClaim(DRIVER_NAME, "shareid-health-pod", claimName,
                "shareid-health-class", poolName, deviceName, UUID.randomUUID().toString());

        node.awaitCalls("wait for NodePrepareResources call to succeed", kubeletPlugin,
                CallMatcher.nodePrepareResourcesSucceeded());

        f.by("wait for pod to be running");
        Pods.waitForRunning(f, pod);

        for (HealthStatus health : new HealthStatus[] {HealthStatus.HEALTHY, HealthStatus.UNHEALTHY,
                HealthStatus.HEALTHY}) {
            String expected = health == HealthStatus.HEALTHY ? "Healthy" : "Unhealthy";
            f.by("Setting device health to " + expected + " via control channel");
            kubeletPlugin.updateDeviceHealth(new DeviceHealthUpdate(poolName, deviceName, health, ""));

            f.by("Verifying device health is " + expected + " in the pod status");
            Waits.until("device with ShareID " + expected, HEALTH_UPDATE_TIMEOUT).until(
                    () -> node.deviceHealth(pod, DRIVER_NAME, claimName, poolName, deviceName), equalTo(expected));
        }
    }
}
