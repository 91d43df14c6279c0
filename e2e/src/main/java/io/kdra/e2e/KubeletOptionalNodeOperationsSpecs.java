package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.NodePlugin;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import io.kdra.plugin.ClaimRef;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.testdriver.CallMatcher;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group AB: ResourceSlices that tell the kubelet to skip node operations (KEP-5945), with a driver that has no
 * node plugin and with a standard one.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] [FeatureGate:DRAOptionalNodeOperations]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DRAOptionalNodeOperations")
@Tag("Alpha")
@Tag("Feature:OffByDefault")
@Tag("FeatureGate:DynamicResourceAllocation")
class KubeletOptionalNodeOperationsSpecs {

    static final String FAILED_PREPARE = "FailedPrepareDynamicResources";

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);

    @Test
    @DisplayName("with control-plane only driver (no node plugin) bypasses node preparation when SkipNodeOperations "
            + "is All [Alpha] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
    void controlPlaneOnlyAll() throws Exception {
        Driver driver = controlPlaneOnlyDriver(Resources.SKIP_NODE_OPERATION_ALL);
        Pod pod = createPod(Builder.now(f, driver));
        Pods.waitForRunning(f, pod);
        NodePlugin plugin = driver.node(nodes.nodeNames().get(0));
        assertThat(CallMatcher.beRegistered().test(plugin.grpcCalls())).as("plugin registered").isFalse();
        assertThat(failedPrepareEvents(pod)).as(FAILED_PREPARE + " events").isEmpty();
    }

    @Test
    @DisplayName("with control-plane only driver (no node plugin) fails node preparation when SkipNodeOperations is "
            + "not set [Alpha] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
    void controlPlaneOnlyUnset() throws Exception {
        expectFailedPreparation(controlPlaneOnlyDriver());
    }

    @Test
    @DisplayName("with control-plane only driver (no node plugin) fails node preparation when SkipNodeOperations is "
            + "UnprepareOnly [Alpha] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
    void controlPlaneOnlyUnprepareOnly() throws Exception {
        // preparation is still required, and nothing can do it
        expectFailedPreparation(controlPlaneOnlyDriver(Resources.SKIP_NODE_OPERATION_NODE_UNPREPARE_RESOURCES));
    }

    @Test
    @DisplayName("with standard driver (node plugin running) bypasses node preparation and unprepare when "
            + "SkipNodeOperations is All [Alpha] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
    void standardDriverAll() throws Exception {
        Driver driver = standardDriver(Resources.SKIP_NODE_OPERATION_ALL);
        Builder b = Builder.now(f, driver);
        Pod pod = createPod(b);
        // nothing was injected, so there is no environment to check
        Pods.waitForRunning(f, pod);
        NodePlugin plugin = driver.node(nodes.nodeNames().get(0));
        assertThat(CallMatcher.nodePrepareResourcesSucceeded().test(plugin.grpcCalls()))
                .as("NodePrepareResources succeeded").isFalse();
        assertThat(CallMatcher.nodePrepareResourcesFailed().test(plugin.grpcCalls()))
                .as("NodePrepareResources failed").isFalse();

        b.deletePodAndWaitForNotFound(pod);
        assertThat(plugin.plugin().countCalls(CallMatcher.NODE_UNPREPARE_RESOURCES))
                .as("NodeUnprepareResources calls").isZero();
    }

    @Test
    @DisplayName("with standard driver (node plugin running) bypasses node unprepare when SkipNodeOperations is "
            + "UnprepareOnly [Alpha] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
    void standardDriverUnprepareOnly() throws Exception {
        Driver driver = standardDriver(Resources.SKIP_NODE_OPERATION_NODE_UNPREPARE_RESOURCES);
        Builder b = Builder.now(f, driver);
        Pod pod = createPod(b);
        b.testPod(pod);
        NodePlugin plugin = driver.node(nodes.nodeNames().get(0));
        assertThat(CallMatcher.nodePrepareResourcesSucceeded().test(plugin.grpcCalls()))
                .as("NodePrepareResources succeeded").isTrue();

        b.deletePodAndWaitForNotFound(pod);
        assertThat(plugin.plugin().countCalls(CallMatcher.NODE_UNPREPARE_RESOURCES))
                .as("NodeUnprepareResources calls").isZero();

        // the kubelet will not unprepare the claim, so the spec does it for the driver's bookkeeping
        ResourceClaim claim = f.client().resources(ResourceClaim.class).inNamespace(f.namespace())
                .withName(pod.getSpec().getResourceClaims().get(0).getResourceClaimName()).get();
        plugin.plugin().unprepareResourceClaims(List.of(new ClaimRef(claim.getMetadata().getNamespace(),
                claim.getMetadata().getName(), claim.getMetadata().getUid())));
    }

    /** A driver that publishes its slices but never registers with the kubelet. */
    private Driver controlPlaneOnlyDriver(String... skipNodeOperations) throws Exception {
        Driver driver = Driver.instance(f).withKubelet(false);
        driver.run(nodes, resources(skipNodeOperations));
        return driver;
    }

    private Driver standardDriver(String... skipNodeOperations) throws Exception {
        Driver driver = Driver.instance(f);
        driver.run(nodes, resources(skipNodeOperations));
        return driver;
    }

    private Map<String, DriverResources> resources(String... skipNodeOperations) {
        return skipNodeOperations.length == 0 ? Resources.driverResourcesNow(nodes, 1)
                : Resources.driverResourcesWithSkipNodeOperationsNow(nodes, 1, skipNodeOperations);
    }

    private static Pod createPod(Builder b) {
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod);
        return pod;
    }

    private void expectFailedPreparation(Driver driver) {
        Pod pod = createPod(Builder.now(f, driver));
        Pods.waitForScheduled(f, pod);
        Waits.until("event " + FAILED_PREPARE + " for pod " + pod.getMetadata().getName(), f.timeouts().podStart())
                .until(() -> !failedPrepareEvents(pod).isEmpty());
    }

    private List<Event> failedPrepareEvents(Pod pod) {
        return f.client().v1().events().inNamespace(f.namespace()).list().getItems().stream()
                .filter(event -> "Pod".equals(event.getInvolvedObject().getKind())
                        && pod.getMetadata().getName().equals(event.getInvolvedObject().getName())
                        && FAILED_PREPARE.equals(event.getReason()))
                .toList();
    }
}
