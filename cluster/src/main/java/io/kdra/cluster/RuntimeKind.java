package io.kdra.cluster;

import io.kdra.cluster.kubelet.KubeletConfig;
import io.kdra.cluster.runtime.Cgroups;
import io.kdra.cluster.runtime.ContainerRuntime;
import io.kdra.cluster.runtime.NoopRuntime;
import io.kdra.cluster.runtime.ProcessRuntime;
import io.kdra.cluster.runtime.SimulatedCgroups;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/** Which container runtime the simulated kubelets drive. */
public enum RuntimeKind {
    /** Containers with a command run as local processes of the invoking user; no isolation. */
    PROCESS,
    /** Containers are Running at once and run nothing; for scale runs. */
    NOOP;

    /** @param name {@code process} or {@code noop}, as {@code kdra cluster up --runtime} takes it */
    public static RuntimeKind named(String name) {
        for (RuntimeKind kind : values()) {
            if (kind.cliName().equals(name.toLowerCase(Locale.ROOT))) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown runtime \"" + name + "\"; use process or noop");
    }

    /**
     * A node's runtime, resolving CDI devices in {@code <root>/cdi}, keeping containers in {@code <root>/containers}
     * and simulated cgroups at the node's {@code /sys/fs/cgroup} ({@link KubeletConfig#hostPath(Path, String)}).
     *
     * @param cgroups whether the node's cgroups are the kernel's; only the process runtime's can be
     * @param timers shared by every node, for kill deadlines
     * @param outputPumps shared by every node, an unbounded pool copying container output into logs
     */
    ContainerRuntime create(Path nodeRoot, String nodeName, CgroupMode cgroups, ScheduledExecutorService timers,
            Executor outputPumps) {
        Path cdi = nodeRoot.resolve("cdi");
        Path containers = nodeRoot.resolve("containers");
        Path simulatedCgroups = KubeletConfig.hostPath(nodeRoot, Cgroups.MOUNT_POINT);
        return switch (this) {
            case PROCESS -> new ProcessRuntime(cdi, containers, cgroups.create(this, nodeName, simulatedCgroups),
                    timers, outputPumps);
            case NOOP -> new NoopRuntime(cdi, containers, new SimulatedCgroups(simulatedCgroups));
        };
    }

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
