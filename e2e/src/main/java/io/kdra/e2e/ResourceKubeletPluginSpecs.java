package io.kdra.e2e;

import static io.kdra.e2e.NodeSpecSupport.DRIVER_NAME;
import static io.kdra.e2e.NodeSpecSupport.PLUGIN_REGISTRATION_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.fabric8.kubernetes.api.model.Pod;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import io.kdra.framework.NodeSuite;
import io.kdra.framework.Pods;
import io.kdra.framework.Waits;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.plugin.ListenerFactory;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.ExamplePlugin;
import io.kdra.testdriver.GrpcCall;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * e2e_node/dra_test.go, "Resource Kubelet Plugin": the kubelet and one test driver on the node under test, through
 * kubelet and plugin restarts, registration failures, prepare and unprepare failures, plugins whose registration and
 * DRA sockets start apart, serving errors, and the kubelet's one connection per plugin. Claims are allocated by hand
 * and pods bound by {@code spec.nodeName}, as on a node without control plane.
 */
@DraSpec
@NodeSuite
@DisplayName("[sig-node] [DRA] [Feature:DynamicResourceAllocation] [FeatureGate:DynamicResourceAllocation]"
        + " Resource Kubelet Plugin [Serial]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DynamicResourceAllocation")
@Tag("Serial")
class ResourceKubeletPluginSpecs {

    final Framework f = Framework.create("dra-node");
    final NodeSpecSupport node = NodeSpecSupport.create(f);

    @Test
    @DisplayName("must register after Kubelet restart")
    void mustRegisterAfterKubeletRestart() throws IOException {
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);
        int oldCalls = kubeletPlugin.grpcCalls().size();

        f.by("restarting Kubelet");
        node.restartKubelet();

        f.by("wait for Kubelet plugin re-registration");
        Waits.until("re-registration", PLUGIN_REGISTRATION_TIMEOUT).until(() -> {
            List<GrpcCall> calls = kubeletPlugin.grpcCalls();
            return calls.subList(Math.min(oldCalls, calls.size()), calls.size());
        }, CallMatcher.beRegistered());
    }

    @Test
    @DisplayName("must register after plugin restart")
    void mustRegisterAfterPluginRestart() throws IOException {
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);

        f.by("restart Kubelet Plugin");
        kubeletPlugin.stop();
        ExamplePlugin restarted = node.newKubeletPlugin(DRIVER_NAME);

        node.awaitRegistered("wait for Kubelet plugin re-registration", restarted);
    }

    @Test
    @DisplayName("must recover and register after registration failure")
    void mustRecoverAndRegisterAfterRegistrationFailure() throws IOException {
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);

        f.by("set GetInfo failure mode");
        kubeletPlugin.setGetInfoError("simulated GetInfo failure");
        kubeletPlugin.resetGrpcCalls();

        f.by("restart Kubelet");
        node.restartKubelet();

        node.awaitCalls("wait for GetInfo call to fail", kubeletPlugin, CallMatcher.getInfoFailed());
        assertThat(CallMatcher.beRegistered().test(kubeletPlugin.grpcCalls()))
                .as("Expect plugin not to be registered due to GetInfo failure").isFalse();

        f.by("unset GetInfo failure mode");
        kubeletPlugin.setGetInfoError(null);

        node.awaitRegistered("wait for Kubelet plugin re-registration", kubeletPlugin);
    }

    @Test
    @DisplayName("must recover and register after NotifyRegistrationStatus failure")
    void mustRecoverAndRegisterAfterNotifyRegistrationStatusFailure() throws IOException {
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);

        f.by("set NotifyRegistrationStatus failure mode");
        kubeletPlugin.setNotifyRegistrationStatusError("simulated NotifyRegistrationStatus failure");
        kubeletPlugin.resetGrpcCalls();

        f.by("restart Kubelet");
        node.restartKubelet();

        node.awaitCalls("wait for NotifyRegistrationStatus call to fail", kubeletPlugin,
                CallMatcher.notifyRegistrationStatusFailed());
        assertThat(CallMatcher.beRegistered().test(kubeletPlugin.grpcCalls()))
                .as("Expect plugin not to be registered due to NotifyRegistrationStatus failure").isFalse();

        f.by("unset NotifyRegistrationStatus failure mode");
        kubeletPlugin.setNotifyRegistrationStatusError(null);

        node.awaitRegistered("wait for Kubelet plugin re-registration", kubeletPlugin);
    }

    @Test
    @DisplayName("must process pod created when kubelet is not running")
    void mustProcessPodCreatedWhenKubeletIsNotRunning() throws IOException {
        node.newKubeletPlugin(DRIVER_NAME);

        f.by("stop kubelet");
        Runnable restartKubelet = node.mustStopKubelet();
        Pod pod = createTestObjects("drapod", true);
        waitForPending(pod);

        f.by("restart kubelet");
        restartKubelet.run();
        Pods.waitForSuccess(f, pod);
    }

    @Test
    @DisplayName("must keep pod in pending state if NodePrepareResources times out")
    void mustKeepPodInPendingStateIfNodePrepareResourcesTimesOut() throws IOException {
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);
        Runnable unblockNodePrepareResources = kubeletPlugin.blockNodePrepareResources();
        f.cleanup("unblock NodePrepareResources", unblockNodePrepareResources::run);
        Pod pod = createTestObjects("drapod", true);

        f.by("wait for pod to be in Pending state");
        waitForPending(pod);

        f.by("check that pod is consistently in Pending state");
        Waits.during("pod stays Pending as resource preparation timed out", f.timeouts().pending())
                .until(Pods.phase(f, pod), is(Pods.PENDING));
    }

    @Test
    @DisplayName("must run pod if NodePrepareResources fails and then succeeds")
    void mustRunPodIfNodePrepareResourcesFailsAndThenSucceeds() throws IOException {
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);
        Runnable unsetNodePrepareResourcesFailureMode = kubeletPlugin.setNodePrepareResourcesFailureMode();
        Pod pod = createTestObjects("drapod", true);

        f.by("wait for pod to be in Pending state");
        waitForPending(pod);

        node.awaitCalls("wait for NodePrepareResources call to fail", kubeletPlugin,
                CallMatcher.nodePrepareResourcesFailed());

        unsetNodePrepareResourcesFailureMode.run();

        node.awaitCalls("wait for NodePrepareResources call to succeed", kubeletPlugin,
                CallMatcher.nodePrepareResourcesSucceeded());

        f.by("wait for pod to succeed");
        Pods.waitForSuccess(f, pod);
    }

    @Test
    @DisplayName("must run pod if NodeUnprepareResources fails and then succeeds")
    void mustRunPodIfNodeUnprepareResourcesFailsAndThenSucceeds() throws IOException {
        FailingUnprepare failing = podWithFailingUnprepare(true);
        ExamplePlugin kubeletPlugin = failing.plugin();
        Pod pod = failing.pod();

        failing.unsetFailureMode().run();

        node.awaitCalls("wait for NodeUnprepareResources call to succeed", kubeletPlugin,
                CallMatcher.nodeUnprepareResourcesSucceeded());

        f.by("wait for pod to succeed");
        Pods.waitForSuccess(f, pod);
    }

    @Test
    @DisplayName("must retry NodePrepareResources after Kubelet restart")
    void mustRetryNodePrepareResourcesAfterKubeletRestart() throws IOException {
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);
        Runnable unsetNodePrepareResourcesFailureMode = kubeletPlugin.setNodePrepareResourcesFailureMode();
        Pod pod = createTestObjects("drapod", true);

        f.by("wait for pod to be in Pending state");
        waitForPending(pod);

        node.awaitCalls("wait for NodePrepareResources call to fail", kubeletPlugin,
                CallMatcher.nodePrepareResourcesFailed());

        restartKubeletAfter(unsetNodePrepareResourcesFailureMode);

        node.awaitCalls("wait for NodePrepareResources call to succeed", kubeletPlugin,
                CallMatcher.nodePrepareResourcesSucceeded());

        f.by("wait for pod to succeed");
        Pods.waitForSuccess(f, pod);
    }

    @Test
    @DisplayName("must retry NodeUnprepareResources after Kubelet restart")
    void mustRetryNodeUnprepareResourcesAfterKubeletRestart() throws IOException {
        FailingUnprepare failing = podWithFailingUnprepare(true);
        ExamplePlugin kubeletPlugin = failing.plugin();
        Pod pod = failing.pod();

        restartKubeletAfter(failing.unsetFailureMode());

        node.awaitCalls("wait for NodeUnprepareResources call to succeed", kubeletPlugin,
                CallMatcher.nodeUnprepareResourcesSucceeded());

        f.by("wait for pod to succeed");
        Pods.waitForSuccess(f, pod);
    }

    @Test
    @DisplayName("must call NodeUnprepareResources for deleted pod")
    void mustCallNodeUnprepareResourcesForDeletedPod() throws IOException {
        FailingUnprepare failing = podWithFailingUnprepare(false);
        ExamplePlugin kubeletPlugin = failing.plugin();
        Pod pod = failing.pod();

        f.by("delete pod");
        f.client().resource(pod).delete();

        node.awaitCalls("wait for NodeUnprepareResources call to fail", kubeletPlugin,
                CallMatcher.nodeUnprepareResourcesFailed());

        failing.unsetFailureMode().run();

        node.awaitCalls("wait for NodeUnprepareResources call to succeed", kubeletPlugin,
                CallMatcher.nodeUnprepareResourcesSucceeded());
    }

    @Test
    @DisplayName("must call NodeUnprepareResources for deleted pod after Kubelet restart")
    void mustCallNodeUnprepareResourcesForDeletedPodAfterKubeletRestart() throws IOException {
        FailingUnprepare failing = podWithFailingUnprepare(false);
        ExamplePlugin kubeletPlugin = failing.plugin();
        Pod pod = failing.pod();

        f.by("delete pod");
        f.client().resource(pod).withGracePeriod(0).delete();

        node.awaitCalls("wait for NodeUnprepareResources call to fail", kubeletPlugin,
                CallMatcher.nodeUnprepareResourcesFailed());

        f.by("restart Kubelet");
        node.restartKubelet();

        node.awaitCalls("wait for NodeUnprepareResources call to fail", kubeletPlugin,
                CallMatcher.nodeUnprepareResourcesFailed());

        failing.unsetFailureMode().run();

        node.awaitCalls("wait for NodeUnprepareResources call to succeed", kubeletPlugin,
                CallMatcher.nodeUnprepareResourcesSucceeded());
    }

    @Test
    @DisplayName("must not call NodePrepareResources for deleted pod after Kubelet restart")
    void mustNotCallNodePrepareResourcesForDeletedPodAfterKubeletRestart() throws IOException {
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);
        Runnable unblockNodePrepareResources = kubeletPlugin.blockNodePrepareResources();
        f.cleanup("unblock NodePrepareResources", unblockNodePrepareResources::run);
        Pod pod = createTestObjects("drapod", false);

        f.by("wait for pod to be in Pending state");
        waitForPending(pod);

        f.by("stop Kubelet");
        Runnable restartKubelet = node.mustStopKubelet();

        f.by("delete pod");
        f.client().resource(pod).delete();

        unblockNodePrepareResources.run();

        f.by("restart Kubelet");
        restartKubelet.run();

        int calls = kubeletPlugin.countCalls(CallMatcher.NODE_PREPARE_RESOURCES);
        f.by("make sure NodePrepareResources is not called again");
        Waits.during("no further NodePrepareResources", f.timeouts().pending())
                .until(() -> kubeletPlugin.countCalls(CallMatcher.NODE_PREPARE_RESOURCES), equalTo(calls));
    }

    @Test
    @DisplayName("must be functional when plugin starts to listen on a service socket after registration 2 sockets")
    void mustBeFunctionalWhenPluginStartsToListenOnAServiceSocketAfterRegistration2Sockets() throws IOException {
        functionalListenAfterRegistration(plugin -> { });
    }

    @Test
    @DisplayName("must be functional when plugin starts to listen on a service socket after registration"
            + " 1 common socket")
    void mustBeFunctionalWhenPluginStartsToListenOnAServiceSocketAfterRegistration1CommonSocket()
            throws IOException {
        functionalListenAfterRegistration(node.commonSocket(DRIVER_NAME));
    }

    private void functionalListenAfterRegistration(Consumer<KubeletPlugin.Builder> opts) throws IOException {
        ExamplePlugin draService = node.newRegisteredDraService(DRIVER_NAME, opts);

        Pod pod = createTestObjects("drapod", false);

        node.awaitCalls("wait for NodePrepareResources call to succeed", draService,
                CallMatcher.nodePrepareResourcesSucceeded());

        f.by("wait for pod to succeed");
        Pods.waitForSuccess(f, pod);
    }

    @Test
    @DisplayName("must be functional after service reconnect 2 sockets")
    void mustBeFunctionalAfterServiceReconnect2Sockets() throws IOException {
        functionalAfterServiceReconnect(plugin -> { });
    }

    @Test
    @DisplayName("must be functional after service reconnect 1 common socket")
    void mustBeFunctionalAfterServiceReconnect1CommonSocket() throws IOException {
        functionalAfterServiceReconnect(node.commonSocket(DRIVER_NAME));
    }

    private void functionalAfterServiceReconnect(Consumer<KubeletPlugin.Builder> opts) throws IOException {
        ExamplePlugin draService = node.newRegisteredDraService(DRIVER_NAME, opts);

        Pod pod = createTestObjects("drasleeppod", false);

        node.awaitCalls("wait for NodePrepareResources call to succeed", draService,
                CallMatcher.nodePrepareResourcesSucceeded());

        f.by("stop plugin");
        draService.stop();

        f.by("waiting for pod to run");
        Pods.waitForRunning(f, pod);

        f.by("wait for ResourceSlice removal, indicating detection of disconnect");
        Waits.until("ResourceSlices without plugin", f.timeouts().resourceSlicesGone())
                .until(() -> node.listResources().isEmpty());

        f.by("restarting plugin");
        ExamplePlugin restarted = node.newDraService(DRIVER_NAME, opts);

        f.by("stopping pod and waiting for it to get removed, indicating that NodeUnprepareResources must have been"
                + " called");
        f.client().resource(pod).delete();
        node.awaitCalls(restarted, CallMatcher.nodeUnprepareResourcesSucceeded());
        Pods.waitForNotFound(f, pod, f.timeouts().podDelete());
    }

    @Test
    @DisplayName("must report gRPC serving error for registrar")
    void mustReportGrpcServingErrorForRegistrar() throws IOException {
        failOnClosedListener(node::newRegistrar, KubeletPlugin.Builder::registrarListener);
    }

    @Test
    @DisplayName("must report gRPC serving error for DRA service")
    void mustReportGrpcServingErrorForDraService() throws IOException {
        failOnClosedListener(node::newDraService, KubeletPlugin.Builder::pluginListener);
    }

    /** How a spec starts one part of the plugin: {@link NodeSpecSupport#newRegistrar} or {@code newDraService}. */
    @FunctionalInterface
    private interface Service {
        ExamplePlugin start(String driverName, Consumer<KubeletPlugin.Builder> options) throws IOException;
    }

    /** The option that injects a listener for one socket: {@code registrarListener} or {@code pluginListener}. */
    @FunctionalInterface
    private interface ListenerOption {
        KubeletPlugin.Builder apply(KubeletPlugin.Builder plugin, ListenerFactory listener);
    }

    private void failOnClosedListener(Service service, ListenerOption listenerOption) throws IOException {
        f.by("create a custom listener");
        String errorMsg = "simulated listener failure";
        NodeSpecSupport.ErrorOnCloseListener listener = new NodeSpecSupport.ErrorOnCloseListener(errorMsg);

        f.by("create a context with a cancel function");
        CompletableFuture<Exception> mainContext = new CompletableFuture<>();

        f.by("start service");
        service.start(DRIVER_NAME, plugin -> listenerOption.apply(plugin, socketPath -> listener)
                .servingErrorHandler(mainContext::complete));

        f.by("close listener to make the grpc.Server.Serve() fail");
        listener.close();

        f.by("check that the context is canceled with an expected error and cause");
        Waits.until("the context canceled by the error handler", PLUGIN_REGISTRATION_TIMEOUT)
                .until(mainContext::isDone);
        assertThat(mainContext.join()).as("the context should be canceled with the expected cause")
                .hasMessageContaining(errorMsg);
    }

    @Test
    @DisplayName("must use one gRPC connection for all service calls")
    void mustUseOneGrpcConnectionForAllServiceCalls() throws IOException {
        NodeSpecSupport.CountingListener[] listener = new NodeSpecSupport.CountingListener[1];
        ListenerFactory getListener = socketPath -> listener[0] = NodeSpecSupport.CountingListener.listen(socketPath);

        ExamplePlugin draService = node.newRegisteredDraService(DRIVER_NAME, plugin -> { },
                plugin -> plugin.pluginListener(getListener));

        for (String suffix : List.of("-1", "-2")) {
            draService.resetGrpcCalls();

            f.by("create test objects " + suffix);
            Pod pod = node.createTestObjects("draclass" + suffix, "external-claim" + suffix, "drapod" + suffix, true,
                    List.of(DRIVER_NAME));

            node.awaitCalls("wait for NodePrepareResources call to succeed " + suffix, draService,
                    CallMatcher.nodePrepareResourcesSucceeded());

            node.awaitCalls("wait for NodeUnprepareResources call to succeed " + suffix, draService,
                    CallMatcher.nodeUnprepareResourcesSucceeded());

            f.by("wait for pod to succeed " + suffix);
            Pods.waitForSuccess(f, pod);

            f.by("check that listener.Accept was called only once " + suffix);
            assertThat(listener[0].acceptCount()).isEqualTo(1);
        }
    }

    /** The plugin, failing every NodeUnprepareResources until {@code unsetFailureMode} runs, and the pod. */
    private record FailingUnprepare(ExamplePlugin plugin, Runnable unsetFailureMode, Pod pod) {
    }

    /**
     * Starts the plugin failing NodeUnprepareResources and a pod, and waits until preparing succeeded and the first
     * unprepare failed.
     */
    private FailingUnprepare podWithFailingUnprepare(boolean deferPodDeletion) throws IOException {
        ExamplePlugin kubeletPlugin = node.newKubeletPlugin(DRIVER_NAME);
        Runnable unsetFailureMode = kubeletPlugin.setNodeUnprepareResourcesFailureMode();
        Pod pod = createTestObjects("drapod", deferPodDeletion);
        node.awaitCalls("wait for NodePrepareResources call to succeed", kubeletPlugin,
                CallMatcher.nodePrepareResourcesSucceeded());
        node.awaitCalls("wait for NodeUnprepareResources call to fail", kubeletPlugin,
                CallMatcher.nodeUnprepareResourcesFailed());
        return new FailingUnprepare(kubeletPlugin, unsetFailureMode, pod);
    }

    /** Stops the kubelet, runs the action while it is down, and starts it again. */
    private void restartKubeletAfter(Runnable whileStopped) {
        f.by("stop Kubelet");
        Runnable restartKubelet = node.mustStopKubelet();
        whileStopped.run();
        f.by("restart Kubelet");
        restartKubelet.run();
    }

    private Pod createTestObjects(String podName, boolean deferPodDeletion) {
        return node.createTestObjects("draclass", "external-claim", podName, deferPodDeletion, List.of(DRIVER_NAME));
    }

    private void waitForPending(Pod pod) {
        Waits.until("pod " + pod.getMetadata().getName() + " Pending", f.timeouts().podStartShort())
                .until(Pods.phase(f, pod), is(Pods.PENDING));
    }
}
