package io.kdra.e2e;

import static io.kdra.e2e.NodeSpecSupport.DRIVER_NAME;
import static io.kdra.e2e.NodeSpecSupport.REQUEST;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.kdra.framework.DisabledFeatureGates;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import io.kdra.framework.NodeSuite;
import io.kdra.framework.Pods;
import io.kdra.kube.FeatureGates;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.ExamplePlugin;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * e2e_node/dra_test.go, "Resource Health › Device ShareID": claims allocated by hand with and without share IDs,
 * also the same device twice with two share IDs, are prepared, used and unprepared. Runs with the gate its labels ask
 * for (DRAConsumableCapacity) and, as its enclosing context wants, without ResourceHealthStatus.
 */
@DraSpec
@NodeSuite
@DisplayName("[sig-node] [DRA] [Feature:DynamicResourceAllocation] [FeatureGate:DynamicResourceAllocation]"
        + " Resource Health [Serial] Device ShareID [FeatureGate:DRAConsumableCapacity] [Beta] [Serial]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DynamicResourceAllocation")
@Tag("FeatureGate:DRAConsumableCapacity")
@Tag("Beta")
@Tag("Serial")
@DisabledFeatureGates(FeatureGates.RESOURCE_HEALTH_STATUS)
class DeviceShareIdSpecs {

    final Framework f = Framework.create("dra-node");
    final NodeSpecSupport node = NodeSpecSupport.create(f).skipIfFeatureGateEnabled(FeatureGates.RESOURCE_HEALTH_STATUS);

    @Test
    @DisplayName("must be functional when plugin starts to listen on a service socket after registration with the"
            + " specified allocation results without ShareID")
    void withoutShareId() throws IOException {
        testWithDeviceRequestAllocationResults();
    }

    @Test
    @DisplayName("must be functional when plugin starts to listen on a service socket after registration with the"
            + " specified allocation results with a ShareID")
    void withAShareId() throws IOException {
        testWithDeviceRequestAllocationResults(someDevice());
    }

    @Test
    @DisplayName("must be functional when plugin starts to listen on a service socket after registration with the"
            + " specified allocation results same device with two ShareIDs")
    void sameDeviceWithTwoShareIds() throws IOException {
        testWithDeviceRequestAllocationResults(someDevice(), someDevice());
    }

    private static DeviceRequestAllocationResult someDevice() {
        return new DeviceRequestAllocationResultBuilder().withDriver(DRIVER_NAME).withPool("some-pool")
                .withDevice("some-device").withRequest(REQUEST).withShareID(UUID.randomUUID().toString())
                .withAdminAccess(false).build();
    }

    private void testWithDeviceRequestAllocationResults(DeviceRequestAllocationResult... results)
            throws IOException {
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);

        node.awaitRegistered("wait for registration to complete", kubeletPlugin);

        Pod pod = node.createTestObjects("draclass", "external-claim", "drapod", false, List.of(DRIVER_NAME),
                results);

        node.awaitCalls("wait for NodePrepareResources call to succeed with given allocation results", kubeletPlugin,
                CallMatcher.nodePrepareResourcesSucceeded());

        f.by("wait for pod to succeed");
        Pods.waitForSuccess(f, pod);

        f.by("delete pod");
        f.client().resource(pod).delete();

        node.awaitCalls("wait for NodeUnprepareResources call to succeed", kubeletPlugin,
                CallMatcher.nodeUnprepareResourcesSucceeded());
    }
}
