package io.kdra.cluster.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.kdra.cluster.kubelet.server.ContainerStreams.PodContainer;
import io.kdra.cluster.runtime.ContainerRuntime.ContainerStartException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelCgroupsTest {

    private static final String UID = "uid-k";
    private static final long TWO_MB = 2L << 20;

    @TempDir
    Path directory;

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService pumps = Executors.newCachedThreadPool();
    private ProcessRuntime runtime;

    @AfterEach
    void tearDown() {
        if (runtime != null) {
            runtime.close();
        }
        timers.shutdownNow();
        pumps.shutdownNow();
    }

    @Test
    void findsTheCgroup2MountInMountinfo() {
        List<String> hybrid = List.of(
                "35 25 0:30 / /sys/fs/cgroup ro,nosuid shared:9 - tmpfs tmpfs ro,mode=755",
                "36 35 0:31 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw",
                "37 35 0:32 / /sys/fs/cgroup/memory rw shared:11 - cgroup cgroup rw,memory");
        assertThat(KernelCgroups.cgroup2Mount(hybrid)).contains(Path.of("/sys/fs/cgroup/unified"));
        assertThat(KernelCgroups.cgroup2Mount(List.of(
                "29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate")))
                .contains(Path.of("/sys/fs/cgroup"));
        assertThat(KernelCgroups.cgroup2Mount(List.of(
                "40 23 0:26 / /mnt/my\\040cgroups rw - cgroup2 none rw"))).contains(Path.of("/mnt/my cgroups"));
        assertThat(KernelCgroups.cgroup2Mount(List.of(
                "41 23 0:26 /kubepods /sys/fs/cgroup rw - cgroup2 none rw",
                "42 23 0:27 / /proc rw - proc proc rw"))).as("a bind mount of a group is not the hierarchy").isEmpty();
    }

    @Test
    void resolvesExecutablesAsProcessBuilderDoes() throws IOException {
        assertThat(KernelCgroups.executable("sh")).endsWith("/sh").startsWith("/");
        assertThat(KernelCgroups.executable("/bin/sh")).isEqualTo("/bin/sh");
        assertThat(KernelCgroups.executable("./relative")).isEqualTo("./relative");
        assertThatThrownBy(() -> KernelCgroups.executable("kdra-no-such-command"))
                .hasMessage("Cannot run program \"kdra-no-such-command\": error=2, No such file or directory");
        assertThatThrownBy(() -> KernelCgroups.executable("/etc/hostname-kdra-missing"))
                .hasMessageContaining("error=2,");
        assertThatThrownBy(() -> KernelCgroups.executable("/etc"))
                .hasMessage("Cannot run program \"/etc\": error=13, Permission denied");
    }

    /**
     * Runs only where this process may create cgroup v2 groups (as root with a writable hierarchy, the case of a
     * kubelet); it uses whichever of cpu, memory and hugetlb the hierarchy offers.
     */
    @Test
    void containerProcessesRunInTheirCgroupWithItsValuesAndScore() throws Exception {
        KernelCgroups cgroups = kernelCgroups();
        runtime = new ProcessRuntime(directory.resolve("cdi"), directory.resolve("containers"), cgroups, timers,
                pumps);
        Path pod = cgroups.root().resolve("kubepods").resolve("burstable").resolve("pod" + UID);
        LinuxResources podValues = new LinuxResources(2048, -1, 0, Map.of("2MB", 4 * TWO_MB), 0);
        cgroups.apply(pod, podValues);
        LinuxResources values = new LinuxResources(1024, 50_000, 256L << 20, Map.of("2MB", TWO_MB), 907);
        PodContainer app = new PodContainer("ns", "pod", "app");
        runtime.start(new ContainerConfig(app, UID, 0, "busybox",
                List.of("sh", "-c", "cat /proc/self/cgroup; echo started; exec sleep 60"), Map.of(), null, List.of(),
                List.of(), new ContainerConfig.Cgroup(pod.resolve("app"), values)));
        Path group = pod.resolve("app");
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.readString(group.resolve("cgroup.procs")).isBlank());
        String relative = "/" + cgroups.root().getParent().relativize(group);
        assertThat(exec(app, "cat /proc/self/cgroup")).as("an exec'd command runs in the container's group")
                .contains("0::" + relative);
        assertThat(exec(app, "cat /proc/self/oom_score_adj /proc/1/oom_score_adj")).isEqualTo("907\n907\n");
        if (cgroups.controllers().contains("hugetlb")) {
            assertThat(exec(app, "cat /sys/fs/cgroup/hugetlb.2MB.max")).isEqualTo(TWO_MB + "\n");
            assertThat(Files.readString(pod.resolve("hugetlb.2MB.max")).strip()).isEqualTo(Long.toString(4 * TWO_MB));
        }
        if (cgroups.controllers().contains("cpu")) {
            assertThat(exec(app, "cat /sys/fs/cgroup/cpu.max /sys/fs/cgroup/cpu.weight"))
                    .isEqualTo("50000 100000\n100\n");
        }
        if (cgroups.controllers().contains("memory")) {
            assertThat(exec(app, "cat /sys/fs/cgroup/memory.max")).isEqualTo((256L << 20) + "\n");
        }

        runtime.updateResources(app, new LinuxResources(1024, -1, 0, Map.of("2MB", 2 * TWO_MB), 907));
        if (cgroups.controllers().contains("hugetlb")) {
            assertThat(exec(app, "cat /sys/fs/cgroup/hugetlb.2MB.max")).isEqualTo(2 * TWO_MB + "\n");
        }

        runtime.removePod(UID);
        cgroups.remove(pod);
        assertThat(pod).doesNotExist();
        runtime.close();
        assertThat(cgroups.root()).as("closing the runtime removes the node's groups").doesNotExist();
    }

    @Test
    void aMissingCommandFailsTheStartAsWithoutCgroups() throws Exception {
        KernelCgroups cgroups = kernelCgroups();
        runtime = new ProcessRuntime(directory.resolve("cdi"), directory.resolve("containers"), cgroups, timers,
                pumps);
        Path group = cgroups.root().resolve("kubepods").resolve("pod" + UID).resolve("app");
        assertThatThrownBy(() -> runtime.start(new ContainerConfig(new PodContainer("ns", "pod", "app"), UID, 0,
                "busybox", List.of("kdra-no-such-command"), Map.of(), null, List.of(), List.of(),
                new ContainerConfig.Cgroup(group, new LinuxResources(2, -1, 0, Map.of(), 1000)))))
                .isInstanceOf(ContainerStartException.class)
                .hasMessageContaining("exec: \"kdra-no-such-command\": executable file not found in $PATH");
    }

    private static KernelCgroups kernelCgroups() throws IOException {
        Optional<Path> hierarchy = KernelCgroups.hierarchy();
        assumeThat(hierarchy).as("a cgroup v2 hierarchy").isPresent();
        assumeThat(Files.isWritable(hierarchy.get())).as("a cgroup v2 hierarchy this process may write").isTrue();
        return KernelCgroups.create(hierarchy.get(), "kernel-test");
    }

    private String exec(PodContainer container, String script) throws Exception {
        Process process = runtime.exec(container, List.of("sh", "-c", script));
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return out;
    }
}
