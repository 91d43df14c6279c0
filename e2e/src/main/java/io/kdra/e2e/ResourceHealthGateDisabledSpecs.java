package io.kdra.e2e;

import static io.kdra.e2e.NodeSpecSupport.CONTAINER;
import static io.kdra.e2e.NodeSpecSupport.DRIVER_NAME;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.kdra.framework.DisabledFeatureGates;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import io.kdra.framework.NodeSuite;
import io.kdra.framework.Pods;
import io.kdra.framework.Waits;
import io.kdra.kube.FeatureGates;
import java.io.IOException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * e2e_node/dra_test.go, "Resource Health" without ResourceHealthStatus: the kubelet adds no health to the pod status.
 * Upstream skips it where the gate is on; here it gets a cluster with the gate off ({@link DisabledFeatureGates}).
 */
@DraSpec
@NodeSuite
@DisplayName("[sig-node] [DRA] [Feature:DynamicResourceAllocation] [FeatureGate:DynamicResourceAllocation]"
        + " Resource Health [Serial]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DynamicResourceAllocation")
@Tag("Serial")
@DisabledFeatureGates(FeatureGates.RESOURCE_HEALTH_STATUS)
class ResourceHealthGateDisabledSpecs {

    final Framework f = Framework.create("dra-node");
    final NodeSpecSupport node = NodeSpecSupport.create(f).skipIfFeatureGateEnabled(FeatureGates.RESOURCE_HEALTH_STATUS);

    @Test
    @DisplayName("should not add health status to Pod when feature gate is disabled")
    void shouldNotAddHealthStatusToPodWhenFeatureGateIsDisabled() throws IOException {
        f.by("Starting a test driver");
        node.newKubeletPlugin(DRIVER_NAME, plugin -> plugin.healthV1alpha1(false).healthV1(false));

        Pod pod = node.createHealthTestPodAndClaim(DRIVER_NAME, "gate-disabled-pod", "gate-disabled-claim",
                "gate-disabled-class", "pool-d", "dev-3", null);

        f.by("Waiting for the pod to be running");
        Pods.waitForRunning(f, pod);

        f.by("Consistently verifying that the allocatedResourcesStatus field remains absent");
        Waits.during("the allocatedResourcesStatus field should be absent when the feature gate is disabled",
                f.timeouts().pending()).until(() -> {
                    Pod current = Pods.get(f, pod).call();
                    for (ContainerStatus status : current.getStatus().getContainerStatuses()) {
                        if (status.getName().equals(CONTAINER)) {
                            if (!status.getAllocatedResourcesStatus().isEmpty()) {
                                throw new AssertionError("expected allocatedResourcesStatus to be absent, but found "
                                        + status.getAllocatedResourcesStatus().size() + " entries");
                            }
                            return true;
                        }
                    }
                    throw new AssertionError("could not find container '" + CONTAINER + "' in pod status");
                });
    }
}
