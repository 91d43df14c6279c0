package io.kdra.e2e;

import static io.kdra.e2e.NodeSpecSupport.DRIVER_NAME;
import static io.kdra.e2e.NodeSpecSupport.RETRY_TEST_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;

import io.fabric8.kubernetes.api.model.Pod;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import io.kdra.framework.NodeSuite;
import io.kdra.framework.Pods;
import io.kdra.framework.Waits;
import io.kdra.plugin.HealthStatus;
import io.kdra.plugin.ListenerFactory;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.DeviceHealthUpdate;
import io.kdra.testdriver.ExamplePlugin;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * e2e_node/dra_test.go, "Resource Health" with ResourceHealthStatus: device health reported by the test driver shows
 * in the pod's {@code allocatedResourcesStatus}, turns Unknown when the plugin stops and recovers when it returns, shares
 * the one connection of the DRA service, and keeps up with several pods at once.
 */
@DraSpec
@NodeSuite
@DisplayName("[sig-node] [DRA] [Feature:DynamicResourceAllocation] [FeatureGate:DynamicResourceAllocation]"
        + " Resource Health [FeatureGate:ResourceHealthStatus] [Beta] [Serial]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DynamicResourceAllocation")
@Tag("FeatureGate:ResourceHealthStatus")
@Tag("Beta")
@Tag("Serial")
class ResourceHealthSpecs {

    static final Duration HEALTH_UPDATE_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration UNKNOWN_TIMEOUT = Duration.ofMinutes(2);

    final Framework f = Framework.create("dra-node");
    final NodeSpecSupport node = NodeSpecSupport.create(f);

    /** What {@link #setupAndVerifyHealthyPod} set up. */
    private record HealthyPod(Pod pod, String claimName, String poolName, String deviceName) {
    }

    @Test
    @DisplayName("should reflect device health changes in the Pod's status")
    void shouldReflectDeviceHealthChangesInThePodsStatus() throws IOException {
        f.by("Starting the test driver with channel-based control");
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);

        HealthyPod healthy = setupAndVerifyHealthyPod(kubeletPlugin, "health-test-class", "health-test-claim",
                "health-test-pod", "pool-a", "dev-0");

        f.by("Setting device health to Unhealthy via control channel");
        sendHealth(kubeletPlugin, healthy, HealthStatus.UNHEALTHY);

        f.by("Verifying device health is now Unhealthy");
        awaitHealth(healthy, "Unhealthy", HEALTH_UPDATE_TIMEOUT);

        f.by("Setting device health back to Healthy via control channel");
        sendHealth(kubeletPlugin, healthy, HealthStatus.HEALTHY);

        f.by("Verifying device health has recovered to Healthy");
        awaitHealth(healthy, "Healthy", HEALTH_UPDATE_TIMEOUT);
    }

    @Test
    @DisplayName("must reuse one gRPC connection for service and health-monitoring calls")
    void mustReuseOneGrpcConnectionForServiceAndHealthMonitoringCalls() throws IOException {
        NodeSpecSupport.CountingListener[] listener = new NodeSpecSupport.CountingListener[1];
        ListenerFactory getListener = socketPath -> listener[0] = NodeSpecSupport.CountingListener.listen(socketPath);

        // 1.36+ kubelets open health streams only for health services the registration advertises.
        ExamplePlugin draService = node.newRegisteredDraService(DRIVER_NAME,
                plugin -> plugin.healthV1alpha1(true).healthV1(true),
                plugin -> plugin.pluginListener(getListener));

        for (String suffix : List.of("-1", "-2")) {
            draService.resetGrpcCalls();

            setupAndVerifyHealthyPod(draService, "health-test-class" + suffix, "health-test-claim" + suffix,
                    "health-test-pod" + suffix, "pool-a" + suffix, "dev-0" + suffix);

            f.by("check that listener.Accept was called only once " + suffix);
            assertThat(listener[0].acceptCount()).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("should update health to Unknown when plugin stops and recover upon restart")
    void shouldUpdateHealthToUnknownWhenPluginStopsAndRecoverUponRestart() throws IOException {
        f.by("Starting the test driver");
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);

        HealthyPod healthy = setupAndVerifyHealthyPod(kubeletPlugin, "unknown-test-class", "unknown-test-claim",
                "unknown-test-pod", "pool-b", "dev-1");

        f.by("Stopping the DRA plugin to simulate a crash");
        kubeletPlugin.stop();

        f.by("Verifying device health transitions to 'Unknown'");
        awaitHealth(healthy, "Unknown", UNKNOWN_TIMEOUT);

        f.by("Restarting the DRA plugin to simulate recovery");
        ExamplePlugin restarted = node.newKubeletPlugin(DRIVER_NAME);

        f.by("Forcing a 'Healthy' status update after restart");
        sendHealth(restarted, healthy, HealthStatus.HEALTHY);

        f.by("Verifying device health recovers to 'Healthy'");
        awaitHealth(healthy, "Healthy", HEALTH_UPDATE_TIMEOUT);
    }

    @Test
    @DisplayName("should automatically reconnect both DRA and Health API after connection drop")
    void shouldAutomaticallyReconnectBothDraAndHealthApiAfterConnectionDrop() throws IOException {
        f.by("Starting the test driver");
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);

        f.by("Creating initial pod to establish connection");
        HealthyPod first = setupAndVerifyHealthyPod(kubeletPlugin, "reconnect-test-class", "reconnect-test-claim",
                "reconnect-test-pod", "pool-reconnect", "dev-reconnect-0");

        f.by("Simulating connection drop by stopping the plugin");
        kubeletPlugin.stop();

        f.by("Verifying health transitions to Unknown after connection drop");
        awaitHealth(first, "Unknown", UNKNOWN_TIMEOUT);

        f.by("Restarting the plugin to simulate reconnection");
        ExamplePlugin restarted = node.newKubeletPlugin(DRIVER_NAME);

        node.awaitRegistered("Waiting for plugin registration after restart", restarted);

        f.by("Creating a new pod to trigger NodePrepareResources after reconnection");
        HealthyPod second = setupAndVerifyHealthyPod(restarted, "reconnect-test-class-2", "reconnect-test-claim-2",
                "reconnect-test-pod-2", "pool-reconnect-2", "dev-reconnect-1");

        f.by("Verifying health updates continue to work");
        sendHealth(restarted, second, HealthStatus.UNHEALTHY);
        awaitHealth(second, "Unhealthy", HEALTH_UPDATE_TIMEOUT);
    }

    @Test
    @DisplayName("should handle concurrent DRA operations and health monitoring without connection issues")
    void shouldHandleConcurrentDraOperationsAndHealthMonitoringWithoutConnectionIssues() throws IOException {
        f.by("Starting the test driver");
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);

        int numPods = 3;
        List<HealthyPod> pods = new ArrayList<>();
        f.by("Creating " + numPods + " pods concurrently to stress test connection management");
        for (int i = 0; i < numPods; i++) {
            String claimName = "concurrent-claim-" + i;
            String poolName = "pool-concurrent-" + i;
            String deviceName = "dev-concurrent-" + i;
            Pod pod = node.createHealthTestPodAndClaim(DRIVER_NAME, "concurrent-pod-" + i, claimName,
                    "concurrent-class-" + i, poolName, deviceName, null);
            pods.add(new HealthyPod(pod, claimName, poolName, deviceName));
        }

        f.by("Waiting for all pods to be running");
        for (HealthyPod pod : pods) {
            Pods.waitForRunning(f, pod.pod());
        }

        f.by("Verifying NodePrepareResources was called for all pods");
        Waits.until("NodePrepareResources should be called at least once per pod", RETRY_TEST_TIMEOUT)
                .until(() -> kubeletPlugin.countCalls(CallMatcher.NODE_PREPARE_RESOURCES),
                        greaterThanOrEqualTo(numPods));

        f.by("Sending health updates for all devices concurrently");
        pods.forEach(pod -> sendHealth(kubeletPlugin, pod, HealthStatus.HEALTHY));

        f.by("Verifying all health updates are correctly reflected");
        pods.forEach(pod -> awaitHealth(pod, "Healthy", HEALTH_UPDATE_TIMEOUT));

        f.by("Changing health status for all devices to verify continued operation");
        pods.forEach(pod -> sendHealth(kubeletPlugin, pod, HealthStatus.UNHEALTHY));

        f.by("Verifying all health changes are correctly reflected");
        pods.forEach(pod -> awaitHealth(pod, "Unhealthy", HEALTH_UPDATE_TIMEOUT));
    }

    /**
     * Upstream's {@code setupAndVerifyHealthyPod}: the pod and its claim, prepared and running, its device reported
     * Healthy and shown so.
     */
    private HealthyPod setupAndVerifyHealthyPod(ExamplePlugin plugin, String className, String claimName,
            String podName, String poolName, String deviceName) {
        Pod pod = node.createHealthTestPodAndClaim(DRIVER_NAME, podName, claimName, className, poolName, deviceName,
                null);
        HealthyPod healthy = new HealthyPod(pod, claimName, poolName, deviceName);

        node.awaitCalls("wait for NodePrepareResources call to succeed", plugin,
                CallMatcher.nodePrepareResourcesSucceeded());

        f.by("Waiting for the pod to be running");
        Pods.waitForRunning(f, pod);

        f.by("Forcing a 'Healthy' status update to establish a baseline");
        sendHealth(plugin, healthy, HealthStatus.HEALTHY);

        f.by("Verifying device health is now Healthy in the pod status");
        awaitHealth(healthy, "Healthy", Duration.ofSeconds(30));
        return healthy;
    }

    private static void sendHealth(ExamplePlugin plugin, HealthyPod pod, HealthStatus health) {
        plugin.updateDeviceHealth(new DeviceHealthUpdate(pod.poolName(), pod.deviceName(), health, ""));
    }

    private void awaitHealth(HealthyPod pod, String health, Duration timeout) {
        Waits.until("device health " + health, timeout).until(() -> node.deviceHealth(pod.pod(), DRIVER_NAME,
                pod.claimName(), pod.poolName(), pod.deviceName()), equalTo(health));
    }
}
