package io.kdra.cluster;

import io.kdra.cluster.runtime.Cgroups;
import io.kdra.cluster.runtime.KernelCgroups;
import io.kdra.cluster.runtime.SimulatedCgroups;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/** Whether the nodes' pod and container cgroups are the kernel's or simulated ({@link Cgroups}). */
public enum CgroupMode {
    /** The kernel's where the process runtime can make them ({@link KernelCgroups#usableHierarchy()}), else simulated. */
    AUTO,
    /** Directories holding the values, read through exec as a container reads its cgroup; nothing is enforced. */
    SIMULATED,
    /** The kernel's cgroup v2 groups; the cluster does not start where they cannot be made. */
    KERNEL;

    /** @param name {@code auto}, {@code simulated} or {@code kernel}, as {@code kdra cluster up --cgroups} takes it */
    public static CgroupMode named(String name) {
        for (CgroupMode mode : values()) {
            if (mode.cliName().equals(name.toLowerCase(Locale.ROOT))) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown cgroup mode \"" + name + "\"; use auto, simulated or kernel");
    }

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * One node's cgroups for a runtime.
     *
     * @param simulatedRoot the node's {@code /sys/fs/cgroup} when simulated
     */
    Cgroups create(RuntimeKind runtime, String nodeName, Path simulatedRoot) {
        if (this == SIMULATED || runtime != RuntimeKind.PROCESS) {
            return new SimulatedCgroups(simulatedRoot);
        }
        Optional<Path> hierarchy = KernelCgroups.usableHierarchy();
        if (hierarchy.isEmpty()) {
            if (this == KERNEL) {
                throw new IllegalStateException("kernel cgroups need a cgroup v2 hierarchy this process may create "
                        + "groups in, offering the controllers " + KernelCgroups.CONTROLLERS + " (see the mounts of "
                        + "type cgroup2 in /proc/self/mountinfo and their cgroup.controllers); use --cgroups auto or "
                        + "simulated");
            }
            return new SimulatedCgroups(simulatedRoot);
        }
        try {
            return KernelCgroups.create(hierarchy.get(), nodeName);
        } catch (IOException e) {
            if (this == KERNEL) {
                throw new UncheckedIOException("cannot create the cgroups of node " + nodeName, e);
            }
            return new SimulatedCgroups(simulatedRoot);
        }
    }
}
