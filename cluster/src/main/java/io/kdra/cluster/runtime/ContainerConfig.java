package io.kdra.cluster.runtime;

import io.kdra.cluster.kubelet.server.ContainerStreams.PodContainer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What the kubelet asks the runtime to start: one instance of a pod's container.
 *
 * @param id the pod's namespace and name and the container's name
 * @param podUid the pod's UID (a restarted pod with the same name has another)
 * @param attempt the restart count of this container, 0 for the first instance; logs of the previous attempt stay
 *     readable
 * @param image the image as written in the pod; runtimes that run local processes do not pull it
 * @param command the container's {@code command} followed by its {@code args}, with {@code $(VAR)} references
 *     expanded; empty when the pod gives neither (the image's default, which the process runtime treats as pause)
 * @param env the container's environment from the pod ({@code env}, with {@code valueFrom} resolved by the kubelet),
 *     before CDI edits
 * @param workingDir the pod's {@code workingDir}, or null
 * @param cdiDevices the fully qualified CDI device IDs of the container's DRA claims, in the kubelet's order
 * @param mounts the container's hostPath volume mounts, resolved on the node
 * @param cgroup where the container's cgroup goes and what it holds, or null when the kubelet manages no cgroups
 */
public record ContainerConfig(PodContainer id, String podUid, int attempt, String image, List<String> command,
        Map<String, String> env, String workingDir, List<String> cdiDevices, List<Mount> mounts, Cgroup cgroup) {

    public ContainerConfig {
        command = List.copyOf(command);
        env = Map.copyOf(env);
        cdiDevices = List.copyOf(cdiDevices);
        mounts = List.copyOf(mounts);
    }

    /**
     * The container's cgroup: a directory of its own below the pod's cgroup, holding the kubelet's resource values.
     *
     * @param directory the container's cgroup directory on the node, which the runtime creates
     * @param resources the container's values
     */
    public record Cgroup(Path directory, LinuxResources resources) {}

    /**
     * A directory of the node seen by the container at another path.
     *
     * @param containerPath where the container sees it, absolute
     * @param hostPath the node's directory
     */
    public record Mount(String containerPath, Path hostPath) {}

    /**
     * Where a path the container names lies on the node: below the mount with the longest matching container path, or
     * the path itself when no mount covers it (processes of the local runtimes share the node's file system).
     */
    public Path resolve(String path) {
        Mount best = null;
        String bestPrefix = null;
        for (Mount mount : mounts) {
            // "/cdi/" mounted covers "/cdi" itself too
            String prefix = mount.containerPath().length() > 1 && mount.containerPath().endsWith("/")
                    ? mount.containerPath().substring(0, mount.containerPath().length() - 1)
                    : mount.containerPath();
            boolean covers = path.equals(prefix) || path.startsWith(prefix.endsWith("/") ? prefix : prefix + "/");
            if (covers && (best == null || prefix.length() > bestPrefix.length())) {
                best = mount;
                bestPrefix = prefix;
            }
        }
        if (best == null) {
            return Path.of(path);
        }
        String rest = path.substring(bestPrefix.length()).replaceFirst("^/+", "");
        return rest.isEmpty() ? best.hostPath() : best.hostPath().resolve(rest);
    }
}
