package io.kdra.cluster.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.kdra.cluster.kubelet.server.ContainerStreams.PodContainer;
import io.kdra.cluster.runtime.KernelCgroups;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A pod on a node whose cgroups are the kernel's: the kubelet's pod group and the runtime's container group are real
 * cgroup v2 groups, the container's processes run in its group, and a hostPath volume of {@code /sys/fs/cgroup} shows
 * the node's groups. Runs only where this process may create cgroup v2 groups; uses whichever of cpu, memory and
 * hugetlb the hierarchy offers.
 */
class KernelCgroupsPodTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private KubeletFixture fixture;

    @AfterEach
    void close() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void aPodRunsInTheKubeletsPodGroupAndItsContainerGroup() throws Exception {
        Optional<Path> hierarchy = KernelCgroups.hierarchy();
        assumeThat(hierarchy).as("a cgroup v2 hierarchy").isPresent();
        assumeThat(Files.isWritable(hierarchy.get())).as("a cgroup v2 hierarchy this process may write").isTrue();
        fixture = new KubeletFixture();
        KernelCgroups[] cgroups = new KernelCgroups[1];
        KubeletFixture.Node node = fixture.kubelet("1.34", config -> config,
                config -> cgroups[0] = KernelCgroups.create(hierarchy.get(), config.nodeName()));
        String namespace = fixture.namespace();
        Map<String, Quantity> requests = Map.of("cpu", new Quantity("100m"), "memory", new Quantity("64Mi"),
                "hugepages-2Mi", new Quantity("2Mi"));
        Map<String, Quantity> limits = Map.of("cpu", new Quantity("200m"), "memory", new Quantity("64Mi"),
                "hugepages-2Mi", new Quantity("2Mi"));
        Pod pod = fixture.pod(namespace, "limited", builder -> builder.editSpec()
                .addNewVolume().withName("node-cgroups").withNewHostPath().withPath("/sys/fs/cgroup").endHostPath()
                .endVolume()
                .addNewContainer().withName("app").withImage("busybox").withCommand("sh", "-c", "exec sleep 600")
                .withNewResources().withRequests(requests).withLimits(limits).endResources()
                .addNewVolumeMount().withName("node-cgroups").withMountPath("/sysfscgroup").endVolumeMount()
                .endContainer().endSpec());
        fixture.bind(pod, node.name());
        await().atMost(WAIT).until(() -> "Running".equals(fixture.get(pod).getStatus().getPhase()));

        String uid = fixture.get(pod).getMetadata().getUid();
        Path podGroup = cgroups[0].root().resolve("kubepods").resolve("burstable").resolve("pod" + uid);
        PodContainer app = new PodContainer(namespace, "limited", "app");
        assertThat(exec(node, app, "cat /proc/self/cgroup"))
                .contains("0::/" + hierarchy.get().relativize(podGroup.resolve("app")));
        String podGroupSeen = "/sysfscgroup/kubepods/burstable/pod" + uid;
        assertThat(exec(node, app, "test -d " + podGroupSeen + " && echo visible")).isEqualTo("visible\n");
        if (cgroups[0].controllers().contains("hugetlb")) {
            assertThat(exec(node, app, "cat /sys/fs/cgroup/hugetlb.2MB.max " + podGroupSeen + "/hugetlb.2MB.max"))
                    .isEqualTo("2097152\n2097152\n");
        }
        if (cgroups[0].controllers().contains("cpu")) {
            assertThat(exec(node, app, "cat /sys/fs/cgroup/cpu.max")).isEqualTo("20000 100000\n");
        }
        if (cgroups[0].controllers().contains("memory")) {
            assertThat(exec(node, app, "cat /sys/fs/cgroup/memory.max")).isEqualTo("67108864\n");
        }

        fixture.admin.resource(fixture.get(pod)).withGracePeriod(0).delete();
        await().atMost(WAIT).until(() -> fixture.get(pod) == null && !Files.exists(podGroup));
    }

    private static String exec(KubeletFixture.Node node, PodContainer container, String script) throws Exception {
        Process process = node.runtime().exec(container, List.of("sh", "-c", script));
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return out;
    }
}
