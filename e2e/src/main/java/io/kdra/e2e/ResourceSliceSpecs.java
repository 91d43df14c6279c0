package io.kdra.e2e;

import static io.kdra.e2e.NodeSpecSupport.DRIVER_NAME;
import static io.kdra.e2e.NodeSpecSupport.PLUGIN_REGISTRATION_TIMEOUT;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import io.kdra.framework.NodeSuite;
import io.kdra.framework.RealSliceWipingDelay;
import io.kdra.framework.Waits;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.testdriver.ExamplePlugin;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * e2e_node/dra_test.go, "ResourceSlice": the kubelet deletes the node's ResourceSlices when it starts, and a driver's
 * when the driver goes away for longer than the wiping delay (unregistered, stopped after registration, never
 * serving its DRA socket), but not when it comes back in time.
 */
@DraSpec
@NodeSuite
@DisplayName("[sig-node] [DRA] [Feature:DynamicResourceAllocation] [FeatureGate:DynamicResourceAllocation]"
        + " ResourceSlice [Serial]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DynamicResourceAllocation")
@Tag("Serial")
class ResourceSliceSpecs {

    /** How long upstream watches that slices stay as they are. */
    private static final Duration CONSISTENTLY = Duration.ofSeconds(5);
    /** The kubelet's real wiping delay, which the quick-restart specs run with ({@link RealSliceWipingDelay}). */
    private static final Duration WIPING_DELAY = Duration.ofSeconds(30);

    final Framework f = Framework.create("dra-node");
    final NodeSpecSupport node = NodeSpecSupport.create(f);

    @Test
    @DisplayName("must be removed on kubelet startup [Disruptive]")
    @Tag("Disruptive")
    void mustBeRemovedOnKubeletStartup() {
        f.by("stop kubelet");
        Runnable restartKubelet = node.mustStopKubelet();

        f.by("create some ResourceSlices");
        String nodeName = node.nodeName();
        String otherNodeName = nodeName + "-other";
        node.createTestResourceSlice(nodeName, DRIVER_NAME);
        node.createTestResourceSlice(otherNodeName, DRIVER_NAME);

        List<String> matchAll = List.of(nodeName, otherNodeName);
        List<String> matchOtherNode = List.of(otherNodeName);

        Waits.during("ResourceSlices without kubelet", CONSISTENTLY).until(node::sliceNodeNames, equalTo(matchAll));

        f.by("restart kubelet");
        restartKubelet.run();

        f.by("wait for exactly the node's ResourceSlice to get deleted");
        Waits.until("ResourceSlices with kubelet", f.timeouts().resourceSlicesGone())
                .until(node::sliceNodeNames, equalTo(matchOtherNode));
        Waits.during("ResourceSlices with kubelet", CONSISTENTLY).until(node::sliceNodeNames, equalTo(matchOtherNode));
    }

    @Test
    @DisplayName("must be removed after plugin unregistration")
    void mustBeRemovedAfterPluginUnregistration() throws IOException {
        List<String> matchNode = List.of(node.nodeName());

        f.by("start plugin and wait for ResourceSlice");
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);
        Waits.until("ResourceSlice from kubelet plugin", PLUGIN_REGISTRATION_TIMEOUT)
                .until(node::sliceNodeNames, equalTo(matchNode));
        Waits.during("ResourceSlice from kubelet plugin", CONSISTENTLY).until(node::sliceNodeNames, equalTo(matchNode));

        f.by("stop plugin and wait for ResourceSlice removal");
        kubeletPlugin.stop();
        Waits.until("ResourceSlices with no plugin", f.timeouts().resourceSlicesGone())
                .until(node::listResources, empty());
        Waits.during("ResourceSlices with no plugin", CONSISTENTLY).until(node::listResources, empty());
    }

    @Test
    @DisplayName("must be removed if plugin stops after registration 2 sockets")
    void mustBeRemovedIfPluginStopsAfterRegistration2Sockets() throws IOException {
        removedIfPluginStopsAfterRegistration(plugin -> { });
    }

    @Test
    @DisplayName("must be removed if plugin stops after registration 1 common socket")
    void mustBeRemovedIfPluginStopsAfterRegistration1CommonSocket() throws IOException {
        removedIfPluginStopsAfterRegistration(node.commonSocket(DRIVER_NAME));
    }

    private void removedIfPluginStopsAfterRegistration(Consumer<KubeletPlugin.Builder> opts) throws IOException {
        ExamplePlugin kubeletPlugin = node.newRegisteredDraService(DRIVER_NAME, opts);

        f.by("wait for ResourceSlice to be created by plugin");
        List<String> matchNode = List.of(node.nodeName());
        Waits.until("ResourceSlices", PLUGIN_REGISTRATION_TIMEOUT).until(node::sliceNodeNames, equalTo(matchNode));
        Waits.during("ResourceSlices", CONSISTENTLY).until(node::sliceNodeNames, equalTo(matchNode));

        f.by("stop plugin");
        kubeletPlugin.stop();

        f.by("wait for ResourceSlice removal");
        Waits.until("ResourceSlices", f.timeouts().resourceSlicesGone()).until(node::listResources, empty());
        Waits.during("ResourceSlices", CONSISTENTLY).until(node::listResources, empty());
    }

    @Test
    @DisplayName("must be removed if plugin is unresponsive after registration")
    void mustBeRemovedIfPluginIsUnresponsiveAfterRegistration() throws IOException {
        String nodeName = node.nodeName();

        f.by("start DRA registrar");
        ExamplePlugin registrar = node.newRegistrar(DRIVER_NAME, plugin -> { });
        node.awaitRegistered("wait for registration to complete", registrar);

        f.by("create a ResourceSlice");
        node.createTestResourceSlice(nodeName, DRIVER_NAME);
        Waits.until("ResourceSlices without plugin", PLUGIN_REGISTRATION_TIMEOUT)
                .until(node::sliceNodeNames, equalTo(List.of(nodeName)));

        f.by("wait for ResourceSlice removal");
        Waits.until("ResourceSlices without plugin", f.timeouts().resourceSlicesGone())
                .until(node::listResources, empty());
        Waits.during("ResourceSlices without plugin", CONSISTENTLY).until(node::listResources, empty());
    }

    @Test
    @DisplayName("must not be removed if plugin restarts quickly enough 2 sockets")
    @RealSliceWipingDelay
    void mustNotBeRemovedIfPluginRestartsQuicklyEnough2Sockets() throws Exception {
        testRemoveIfRestartsQuickly(plugin -> { });
    }

    @Test
    @DisplayName("must not be removed if plugin restarts quickly enough 1 common socket")
    @RealSliceWipingDelay
    void mustNotBeRemovedIfPluginRestartsQuicklyEnough1CommonSocket() throws Exception {
        testRemoveIfRestartsQuickly(node.commonSocket(DRIVER_NAME));
    }

    private void testRemoveIfRestartsQuickly(Consumer<KubeletPlugin.Builder> opts) throws Exception {
        ExamplePlugin kubeletPlugin = node.newRegisteredDraService(DRIVER_NAME, opts);

        f.by("wait for ResourceSlice to be created by plugin");
        List<String> matchNode = List.of(node.nodeName());
        Waits.until("ResourceSlices", PLUGIN_REGISTRATION_TIMEOUT).until(node::sliceNodeNames, equalTo(matchNode));
        AtomicReference<List<ResourceSlice>> slices = new AtomicReference<>();
        Waits.during("ResourceSlices", CONSISTENTLY).until(() -> {
            slices.set(node.listResources());
            return node.sliceNodeNames();
        }, equalTo(matchNode));

        f.by("stop plugin");
        kubeletPlugin.stop();

        // Upstream: the kubelet notices the dropped connection within a few seconds, far less than the wiping delay.
        Thread.sleep(5_000);

        f.by("restarting plugin");
        node.newDraService(DRIVER_NAME, opts);

        f.by("ensuring unchanged ResourceSlices");
        Waits.during("ResourceSlices", WIPING_DELAY.plus(CONSISTENTLY)).until(node::listResources,
                equalTo(slices.get()));
    }
}
