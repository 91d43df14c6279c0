package io.kdra.cluster.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The pod lifecycle a kubelet owns: init containers, restart policies, crash-loop back-off, env, termination. */
class PodLifecycleTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final KubeletFixture fixture = create();
    private static KubeletFixture.Node node;

    private static KubeletFixture create() {
        try {
            KubeletFixture created = new KubeletFixture();
            node = created.kubelet("1.34");
            return created;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterAll
    static void close() throws Exception {
        fixture.close();
    }

    private static Pod status(Pod pod) {
        return fixture.get(pod);
    }

    private static String phase(Pod pod) {
        Pod current = fixture.get(pod);
        return current == null ? null : current.getStatus().getPhase();
    }

    @Test
    void initContainersRunInOrderBeforeTheContainers() throws Exception {
        String namespace = fixture.namespace();
        Path order = fixture.base.resolve(namespace + "-order");
        Pod pod = fixture.pod(namespace, "init", builder -> builder.editSpec()
                .addNewInitContainer().withName("first").withImage("busybox")
                .withCommand("sh", "-c", "echo first >> " + order).endInitContainer()
                .addNewInitContainer().withName("second").withImage("busybox")
                .withCommand("sh", "-c", "echo second >> " + order).endInitContainer()
                .addNewContainer().withName("main").withImage("busybox")
                .withCommand("sh", "-c", "echo main >> " + order + "; exec sleep 100000").endContainer()
                .endSpec());
        fixture.bind(pod, node.name());

        await().atMost(WAIT).until(() -> "Running".equals(phase(pod)));
        await().atMost(WAIT).until(() -> Files.exists(order) && Files.readAllLines(order).size() == 3);
        assertThat(Files.readAllLines(order)).containsExactly("first", "second", "main");
        Pod running = status(pod);
        assertThat(running.getStatus().getInitContainerStatuses()).allSatisfy(init -> {
            assertThat(init.getState().getTerminated().getReason()).isEqualTo("Completed");
            assertThat(init.getState().getTerminated().getExitCode()).isZero();
        });
        assertThat(running.getStatus().getConditions()).extracting(c -> c.getType() + "=" + c.getStatus())
                .contains("Initialized=True", "Ready=True");
    }

    @Test
    void aSidecarStartsBeforeTheNextInitContainerRunsBesideTheContainersAndStopsWhenTheyEnd() throws Exception {
        String namespace = fixture.namespace();
        Path order = fixture.base.resolve(namespace + "-sidecar");
        Pod pod = fixture.pod(namespace, "sidecar", builder -> builder.editSpec().withRestartPolicy("Never")
                .addNewInitContainer().withName("sidecar").withImage("busybox").withRestartPolicy("Always")
                .withCommand("sh", "-c", "echo sidecar >> " + order + "; exec sleep 100000").endInitContainer()
                .addNewInitContainer().withName("init").withImage("busybox")
                .withCommand("sh", "-c", "echo init >> " + order).endInitContainer()
                .addNewContainer().withName("main").withImage("busybox")
                .withCommand("sh", "-c", "echo main >> " + order + "; sleep 1").endContainer()
                .endSpec());
        fixture.bind(pod, node.name());

        await().atMost(WAIT).until(() -> Files.exists(order) && Files.readAllLines(order).size() == 3);
        assertThat(Files.readAllLines(order)).containsExactly("sidecar", "init", "main");
        await().atMost(WAIT).until(() -> "Succeeded".equals(phase(pod)));
        assertThat(KubeletFixture.running(node, namespace, "sidecar", "sidecar")).isNull();
    }

    @Test
    void aFailingInitContainerWithRestartPolicyNeverFailsThePod() throws Exception {
        String namespace = fixture.namespace();
        Pod pod = fixture.pod(namespace, "bad-init", builder -> builder.editSpec().withRestartPolicy("Never")
                .addNewInitContainer().withName("init").withImage("busybox").withCommand("sh", "-c", "exit 2")
                .endInitContainer()
                .addNewContainer().withName("main").withImage("busybox").endContainer().endSpec());
        fixture.bind(pod, node.name());

        await().atMost(WAIT).until(() -> "Failed".equals(phase(pod)));
        Pod failed = status(pod);
        var terminated = failed.getStatus().getInitContainerStatuses().get(0).getState().getTerminated();
        assertThat(terminated.getExitCode()).isEqualTo(2);
        assertThat(terminated.getReason()).isEqualTo("Error");
        assertThat(failed.getStatus().getContainerStatuses().get(0).getState().getWaiting().getReason())
                .isEqualTo("PodInitializing");
        assertThat(KubeletFixture.running(node, namespace, "bad-init", "main")).isNull();
    }

    @Test
    void restartPolicyDecidesWhetherAnExitedContainerRestarts() throws Exception {
        String namespace = fixture.namespace();
        Pod never = fixture.pod(namespace, "never", builder -> builder.editSpec().withRestartPolicy("Never")
                .addNewContainer().withName("c").withImage("busybox").withCommand("sh", "-c", "exit 3")
                .endContainer().endSpec());
        Pod succeeds = fixture.pod(namespace, "succeeds", builder -> builder.editSpec().withRestartPolicy("OnFailure")
                .addNewContainer().withName("c").withImage("busybox").withCommand("true").endContainer().endSpec());
        Pod crashes = fixture.pod(namespace, "crashes", builder -> builder.editSpec().withRestartPolicy("Always")
                .addNewContainer().withName("c").withImage("busybox").withCommand("sh", "-c", "exit 1")
                .endContainer().endSpec());
        fixture.bind(never, node.name());
        fixture.bind(succeeds, node.name());
        fixture.bind(crashes, node.name());

        await().atMost(WAIT).until(() -> "Failed".equals(phase(never)));
        var terminated = status(never).getStatus().getContainerStatuses().get(0).getState().getTerminated();
        assertThat(terminated.getExitCode()).isEqualTo(3);
        assertThat(terminated.getReason()).isEqualTo("Error");
        assertThat(status(never).getStatus().getContainerStatuses().get(0).getRestartCount()).isZero();

        await().atMost(WAIT).until(() -> "Succeeded".equals(phase(succeeds)));
        assertThat(status(succeeds).getStatus().getContainerStatuses().get(0).getState().getTerminated().getReason())
                .isEqualTo("Completed");

        await().atMost(WAIT).until(() -> status(crashes).getStatus().getContainerStatuses().stream()
                .anyMatch(container -> container.getRestartCount() >= 2 && container.getState().getWaiting() != null
                        && "CrashLoopBackOff".equals(container.getState().getWaiting().getReason())));
        ContainerStatus looping = status(crashes).getStatus().getContainerStatuses().get(0);
        assertThat(looping.getState().getWaiting().getMessage()).startsWith("back-off ")
                .endsWith(" restarting failed container=c pod=crashes_" + namespace + "("
                        + crashes.getMetadata().getUid() + ")");
        assertThat(looping.getLastState().getTerminated().getExitCode()).isEqualTo(1);
        assertThat(phase(crashes)).isEqualTo("Running");
        await().atMost(WAIT).until(() -> !fixture.events(crashes, "BackOff").isEmpty());
    }

    @Test
    void theEnvironmentComesFromThePodTheApiAndExpansion() throws Exception {
        String namespace = fixture.namespace();
        fixture.admin.resource(new ConfigMapBuilder().withNewMetadata().withNamespace(namespace).withName("cm")
                .endMetadata().withData(Map.of("color", "blue")).build()).create();
        fixture.admin.resource(new SecretBuilder().withNewMetadata().withNamespace(namespace).withName("s")
                .endMetadata().withStringData(Map.of("token", "t0k3n")).build()).create();
        Path output = fixture.base.resolve(namespace + "-args");
        Pod pod = fixture.pod(namespace, "env", builder -> builder.editSpec()
                .addNewContainer().withName("c").withImage("busybox")
                .withCommand("sh", "-c", "echo \"$1\" > " + output + "; exec sleep 100000", "--")
                .withArgs("$(GREETING) $(MISSING) $$(GREETING)")
                .addNewEnv().withName("NAME").withValue("world").endEnv()
                .addNewEnv().withName("GREETING").withValue("hello $(NAME)").endEnv()
                .addNewEnv().withName("POD").withNewValueFrom().withNewFieldRef().withFieldPath("metadata.name")
                .endFieldRef().endValueFrom().endEnv()
                .addNewEnv().withName("POD_NAMESPACE").withNewValueFrom().withNewFieldRef()
                .withFieldPath("metadata.namespace").endFieldRef().endValueFrom().endEnv()
                .addNewEnv().withName("POD_UID").withNewValueFrom().withNewFieldRef().withFieldPath("metadata.uid")
                .endFieldRef().endValueFrom().endEnv()
                .addNewEnv().withName("NODE").withNewValueFrom().withNewFieldRef().withFieldPath("spec.nodeName")
                .endFieldRef().endValueFrom().endEnv()
                .addNewEnv().withName("POD_IP").withNewValueFrom().withNewFieldRef().withFieldPath("status.podIP")
                .endFieldRef().endValueFrom().endEnv()
                .addNewEnv().withName("COLOR").withNewValueFrom().withNewConfigMapKeyRef().withName("cm")
                .withKey("color").endConfigMapKeyRef().endValueFrom().endEnv()
                .addNewEnv().withName("TOKEN").withNewValueFrom().withNewSecretKeyRef().withName("s")
                .withKey("token").endSecretKeyRef().endValueFrom().endEnv()
                .endContainer().endSpec());
        fixture.bind(pod, node.name());

        await().atMost(WAIT).until(() -> "Running".equals(phase(pod)));
        Map<String, String> env = KubeletFixture.env(node, namespace, "env", "c");
        assertThat(env).containsEntry("GREETING", "hello world").containsEntry("POD", "env")
                .containsEntry("POD_NAMESPACE", namespace).containsEntry("POD_UID", pod.getMetadata().getUid())
                .containsEntry("NODE", node.name()).containsEntry("POD_IP", "127.0.0.1")
                .containsEntry("COLOR", "blue").containsEntry("TOKEN", "t0k3n");
        await().atMost(WAIT).until(() -> Files.exists(output) && !Files.readString(output).isEmpty());
        assertThat(Files.readString(output).strip()).isEqualTo("hello world $(MISSING) $(GREETING)");
    }

    @Test
    void aMissingConfigMapIsACreateContainerConfigError() throws Exception {
        String namespace = fixture.namespace();
        Pod pod = fixture.pod(namespace, "no-cm", builder -> builder.editSpec()
                .addNewContainer().withName("c").withImage("busybox")
                .addNewEnv().withName("X").withNewValueFrom().withNewConfigMapKeyRef().withName("absent")
                .withKey("k").endConfigMapKeyRef().endValueFrom().endEnv().endContainer().endSpec());
        fixture.bind(pod, node.name());

        await().atMost(WAIT).until(() -> status(pod).getStatus().getContainerStatuses().stream()
                .anyMatch(c -> c.getState().getWaiting() != null
                        && "CreateContainerConfigError".equals(c.getState().getWaiting().getReason())));
        assertThat(status(pod).getStatus().getContainerStatuses().get(0).getState().getWaiting().getMessage())
                .isEqualTo("configmap \"absent\" not found");
    }

    @Test
    void deletionStopsTheContainersWithTheGracePeriodAndRemovesThePod() throws Exception {
        String namespace = fixture.namespace();
        Pod pod = fixture.pod(namespace, "stubborn", builder -> builder.editSpec()
                .withTerminationGracePeriodSeconds(2L)
                .addNewContainer().withName("c").withImage("busybox")
                .withCommand("sh", "-c", "trap '' TERM; while true; do sleep 0.2; done").endContainer().endSpec());
        fixture.bind(pod, node.name());
        await().atMost(WAIT).until(() -> "Running".equals(phase(pod)));
        var container = KubeletFixture.running(node, namespace, "stubborn", "c");

        fixture.admin.resource(status(pod)).delete();
        await().atMost(WAIT).until(() -> fixture.get(pod) == null);
        assertThat(container.exit()).isCompletedWithValue(137);
        assertThat(fixture.events(pod, "Killing")).extracting(e -> e.getMessage())
                .containsExactly("Stopping container c");
        assertThat(node.runtime().running()).noneMatch(c -> c.config().podUid().equals(pod.getMetadata().getUid()));
    }
}
