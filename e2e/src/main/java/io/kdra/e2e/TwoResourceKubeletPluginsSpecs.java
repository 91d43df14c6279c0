package io.kdra.e2e;

import static io.kdra.e2e.NodeSpecSupport.KUBELET_PLUGIN1_NAME;
import static io.kdra.e2e.NodeSpecSupport.KUBELET_PLUGIN2_NAME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.is;

import io.fabric8.kubernetes.api.model.Pod;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import io.kdra.framework.NodeSuite;
import io.kdra.framework.Pods;
import io.kdra.framework.Waits;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.ExamplePlugin;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * e2e_node/dra_test.go, "Two resource Kubelet Plugins": one claim with a device of each of two drivers on the node
 * under test, prepared and unprepared by both, counted in the kubelet's metrics, with one driver failing or blocking,
 * also across a kubelet restart.
 */
@DraSpec
@NodeSuite
@DisplayName("[sig-node] [DRA] [Feature:DynamicResourceAllocation] [FeatureGate:DynamicResourceAllocation]"
        + " Two resource Kubelet Plugins [Serial]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DynamicResourceAllocation")
@Tag("Serial")
class TwoResourceKubeletPluginsSpecs {

    private static final String ANY_DRIVER = "<any>";

    final Framework f = Framework.create("dra-node");
    final NodeSpecSupport node = NodeSpecSupport.create(f);

    /** Both plugins, registered; stopped after the spec. */
    private record Plugins(ExamplePlugin first, ExamplePlugin second) {
    }

    private Plugins start() throws IOException {
        ExamplePlugin kubeletPlugin1 = node.newKubeletPlugin(KUBELET_PLUGIN1_NAME);
        ExamplePlugin kubeletPlugin2 = node.newKubeletPlugin(KUBELET_PLUGIN2_NAME);

        node.awaitRegistered("wait for Kubelet plugin registration", kubeletPlugin1);
        node.awaitRegistered(kubeletPlugin2);
        return new Plugins(kubeletPlugin1, kubeletPlugin2);
    }

    @Test
    @DisplayName("must prepare and unprepare resources")
    void mustPrepareAndUnprepareResources() throws IOException {
        Plugins plugins = start();

        Pod pod = createTestObjects("drapod", true);

        f.by("wait for pod to succeed");
        Pods.waitForSuccess(f, pod);

        node.awaitCalls("wait for NodePrepareResources calls to succeed", plugins.first(),
                CallMatcher.nodePrepareResourcesSucceeded());
        node.awaitCalls(plugins.second(), CallMatcher.nodePrepareResourcesSucceeded());

        node.awaitCalls("wait for NodeUnprepareResources calls to succeed", plugins.first(),
                CallMatcher.nodeUnprepareResourcesSucceeded());
        node.awaitCalls(plugins.second(), CallMatcher.nodeUnprepareResourcesSucceeded());
    }

    @Test
    @DisplayName("must provide metrics")
    void mustProvideMetrics() throws IOException {
        Plugins plugins = start();

        Pod pod = createTestObjects("drasleeppod", false);

        f.by("wait for pod to succeed");
        Pods.waitForRunning(f, pod);
        assertThat(CallMatcher.nodePrepareResourcesSucceeded().test(plugins.first().grpcCalls()))
                .as("Plugin 1 should have prepared resources.").isTrue();
        assertThat(CallMatcher.nodePrepareResourcesSucceeded().test(plugins.second().grpcCalls()))
                .as("Plugin 2 should have prepared resources.").isTrue();
        assertThat(node.claimsInUse()).as("metrics while pod is running").isEqualTo(Map.of(
                ANY_DRIVER, 1.0, KUBELET_PLUGIN1_NAME, 1.0, KUBELET_PLUGIN2_NAME, 1.0));

        f.by("delete pod");
        f.client().resource(pod).delete();
        Pods.waitForNotFound(f, pod, f.timeouts().podDelete());
        assertThat(CallMatcher.nodeUnprepareResourcesSucceeded().test(plugins.first().grpcCalls()))
                .as("Plugin 1 should have unprepared resources.").isTrue();
        assertThat(CallMatcher.nodeUnprepareResourcesSucceeded().test(plugins.second().grpcCalls()))
                .as("Plugin 2 should have unprepared resources.").isTrue();
        assertThat(node.claimsInUse()).as("metrics after deleting pod").isEqualTo(Map.of(ANY_DRIVER, 0.0));
    }

    @Test
    @DisplayName("must run pod if NodePrepareResources fails for one plugin and then succeeds")
    void mustRunPodIfNodePrepareResourcesFailsForOnePluginAndThenSucceeds() throws IOException {
        Plugins plugins = start();

        Runnable unsetNodePrepareResourcesFailureMode = plugins.second().setNodePrepareResourcesFailureMode();
        Pod pod = createTestObjects("drapod", true);

        f.by("wait for pod to be in Pending state");
        waitForPending(pod);

        node.awaitCalls("wait for plugin2 NodePrepareResources call to fail", plugins.second(),
                CallMatcher.nodePrepareResourcesFailed());

        unsetNodePrepareResourcesFailureMode.run();

        node.awaitCalls("wait for plugin2 NodePrepareResources call to succeed", plugins.second(),
                CallMatcher.nodePrepareResourcesSucceeded());

        f.by("wait for pod to succeed");
        Pods.waitForSuccess(f, pod);
    }

    @Test
    @DisplayName("must run pod if NodeUnprepareResources fails for one plugin and then succeeds")
    void mustRunPodIfNodeUnprepareResourcesFailsForOnePluginAndThenSucceeds() throws IOException {
        Plugins plugins = start();

        Runnable unsetNodeUnprepareResourcesFailureMode = plugins.second().setNodeUnprepareResourcesFailureMode();
        Pod pod = createTestObjects("drapod", true);

        node.awaitCalls("wait for plugin1 NodePrepareResources call to succeed", plugins.first(),
                CallMatcher.nodePrepareResourcesSucceeded());

        node.awaitCalls("wait for plugin2 NodePrepareResources call to succeed", plugins.second(),
                CallMatcher.nodePrepareResourcesSucceeded());

        node.awaitCalls("wait for plugin2 NodeUnprepareResources call to fail", plugins.second(),
                CallMatcher.nodeUnprepareResourcesFailed());

        unsetNodeUnprepareResourcesFailureMode.run();

        node.awaitCalls("wait for plugin2 NodeUnprepareResources call to succeed", plugins.second(),
                CallMatcher.nodeUnprepareResourcesSucceeded());

        f.by("wait for pod to succeed");
        Pods.waitForSuccess(f, pod);
    }

    @Test
    @DisplayName("must run pod if NodePrepareResources is in progress for one plugin when Kubelet restarts")
    void mustRunPodIfNodePrepareResourcesIsInProgressForOnePluginWhenKubeletRestarts() throws IOException {
        Plugins plugins = start();

        Runnable unblockNodePrepareResources = plugins.first().blockNodePrepareResources();
        f.cleanup("unblock NodePrepareResources", unblockNodePrepareResources::run);
        Pod pod = createTestObjects("drapod", true);

        f.by("wait for pod to be in Pending state");
        waitForPending(pod);

        f.by("restart Kubelet");
        node.restartKubelet();

        unblockNodePrepareResources.run();

        node.awaitCalls("wait for plugin2 NodePrepareResources call to succeed", plugins.second(),
                CallMatcher.nodePrepareResourcesSucceeded());

        f.by("wait for pod to succeed");
        Pods.waitForSuccess(f, pod);
    }

    @Test
    @DisplayName("must call NodeUnprepareResources again if it's in progress for one plugin when Kubelet restarts")
    void mustCallNodeUnprepareResourcesAgainIfItsInProgressForOnePluginWhenKubeletRestarts() throws IOException {
        Plugins plugins = start();

        Runnable unblockNodeUnprepareResources = plugins.second().blockNodeUnprepareResources();
        f.cleanup("unblock NodeUnprepareResources", unblockNodeUnprepareResources::run);
        Pod pod = createTestObjects("drapod", true);

        node.awaitCalls("wait for plugin1 NodePrepareResources call to succeed", plugins.first(),
                CallMatcher.nodePrepareResourcesSucceeded());

        node.awaitCalls("wait for plugin2 NodePrepareResources call to succeed", plugins.second(),
                CallMatcher.nodePrepareResourcesSucceeded());

        f.by("restart Kubelet");
        node.restartKubelet();

        unblockNodeUnprepareResources.run();

        node.awaitCalls("wait for plugin2 NodeUnprepareResources call to succeed", plugins.second(),
                CallMatcher.nodeUnprepareResourcesSucceeded());

        f.by("wait for pod to succeed");
        Pods.waitForSuccess(f, pod);
    }

    private Pod createTestObjects(String podName, boolean deferPodDeletion) {
        return node.createTestObjects("draclass", "external-claim", podName, deferPodDeletion,
                List.of(KUBELET_PLUGIN1_NAME, KUBELET_PLUGIN2_NAME));
    }

    private void waitForPending(Pod pod) {
        Waits.until("pod " + pod.getMetadata().getName() + " Pending", f.timeouts().podStartShort())
                .until(Pods.phase(f, pod), is(Pods.PENDING));
    }
}
