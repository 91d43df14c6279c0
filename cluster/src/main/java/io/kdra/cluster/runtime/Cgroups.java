package io.kdra.cluster.runtime;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A node's cgroup hierarchy, its {@code /sys/fs/cgroup}: the kubelet puts each pod's cgroup below {@link #root()}
 * and the runtime each container's below its pod's, with the values the kubelet computed.
 *
 * <p>Either the groups are plain directories holding the values as the kernel's files would ({@link
 * SimulatedCgroups}; processes stay where they are), or they are the kernel's cgroup v2 groups, with the values
 * written to their controllers and the containers' processes moved into them ({@link KernelCgroups}).
 */
public sealed interface Cgroups extends AutoCloseable permits SimulatedCgroups, KernelCgroups {

    /** Where a node and a container see their cgroups. */
    String MOUNT_POINT = "/sys/fs/cgroup";

    /** The node's {@code /sys/fs/cgroup}. */
    Path root();

    /** Creates the group (a path below {@link #root()}) and its parents if missing, and sets these values. */
    void apply(Path group, LinuxResources resources) throws IOException;

    /** Removes a group and every group below it; a missing group is no error. */
    void remove(Path group) throws IOException;

    /**
     * The command that runs {@code command} inside the container's cgroup with its {@code oom_score_adj}, or the
     * command itself when processes are not placed or the container has no cgroup.
     *
     * @throws IOException when the command's executable is not found or not executable, with the message a
     *     {@link ProcessBuilder} would give
     */
    List<String> placed(ContainerConfig container, List<String> command) throws IOException;

    /** Whether containers' processes run inside their cgroups. */
    boolean placesProcesses();

    /** Removes what this hierarchy created. */
    @Override
    void close();
}
