package io.kdra.cluster.runtime;

import io.kdra.plugin.cdi.Mount;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The mounts of a container (CDI mounts and volume mounts such as hostPath), for runtimes whose containers are host
 * processes without a mount namespace: a command that names a path below a mount's container path gets the host path
 * instead, so that {@code cat <container path>} reads the mounted file and {@code mv /cdi/a.tmp /cdi/a} moves it on the
 * node. Paths of other containers' mounts stay as they are and so are missing, as in a real container.
 *
 * <p>A container path is replaced where it stands as a path of its own within an argument (also inside a shell
 * script): not preceded by a path character, and followed by the end, a {@code /} or a character that cannot be part
 * of a path. The longest container path that matches wins, so a mount inside another mount keeps its own host path.
 */
final class ContainerPaths {

    static final ContainerPaths NONE = new ContainerPaths(List.of());

    private final List<Mount> mounts;

    private ContainerPaths(List<Mount> mounts) {
        this.mounts = mounts;
    }

    /** The paths of these mounts. */
    static ContainerPaths of(List<Mount> mounts) {
        if (mounts.isEmpty()) {
            return NONE;
        }
        return new ContainerPaths(mounts.stream()
                .sorted(Comparator.comparingInt((Mount mount) -> mount.containerPath().length()).reversed())
                .toList());
    }

    /**
     * The paths of a container's CDI mounts and of its volume mounts (a volume at {@code /} maps nothing), and, when
     * it has a cgroup, {@code /sys/fs/cgroup} at its cgroup directory (a container sees its own cgroup there, as with
     * a private cgroup namespace) and its {@code oom_score_adj} at {@code /proc/1/}, and at {@code /proc/self/}
     * unless its processes are placed in it (they then have the score themselves).
     *
     * @param oomScoreAdjFile the file holding the container's {@code oom_score_adj}; used only with a cgroup
     * @param processesPlaced whether the container's processes run in its cgroup ({@link Cgroups#placesProcesses()})
     */
    static ContainerPaths of(List<Mount> cdiMounts, ContainerConfig container, Path oomScoreAdjFile,
            boolean processesPlaced) {
        List<Mount> mounts = new ArrayList<>(cdiMounts);
        if (container.cgroup() != null) {
            mounts.add(new Mount(container.cgroup().directory().toString(), Cgroups.MOUNT_POINT, null, null));
            for (String process : processesPlaced ? List.of("1") : List.of("1", "self")) {
                mounts.add(new Mount(oomScoreAdjFile.toString(), "/proc/" + process + "/oom_score_adj", null, null));
            }
        }
        for (ContainerConfig.Mount volume : container.mounts()) {
            String path = volume.containerPath().length() > 1 && volume.containerPath().endsWith("/")
                    ? volume.containerPath().substring(0, volume.containerPath().length() - 1)
                    : volume.containerPath();
            if (!path.equals("/")) {
                mounts.add(new Mount(container.resolve(path).toString(), path, null, null));
            }
        }
        return of(mounts);
    }

    /** The command with every mounted container path replaced by its host path. */
    List<String> rewrite(List<String> command) {
        if (mounts.isEmpty()) {
            return command;
        }
        return command.stream().map(this::rewrite).toList();
    }

    private String rewrite(String argument) {
        StringBuilder result = null;
        int copied = 0;
        int i = 0;
        while (i < argument.length()) {
            Mount mount = i > 0 && isPathCharacter(argument.charAt(i - 1)) ? null : mountAt(argument, i);
            if (mount == null) {
                i++;
                continue;
            }
            if (result == null) {
                result = new StringBuilder(argument.length() + 64);
            }
            result.append(argument, copied, i).append(mount.hostPath());
            i += mount.containerPath().length();
            copied = i;
        }
        return result == null ? argument : result.append(argument, copied, argument.length()).toString();
    }

    private Mount mountAt(String argument, int start) {
        for (Mount mount : mounts) {
            String path = mount.containerPath();
            if (argument.startsWith(path, start)) {
                int end = start + path.length();
                if (end == argument.length() || argument.charAt(end) == '/' || !isPathCharacter(argument.charAt(end))) {
                    return mount;
                }
            }
        }
        return null;
    }

    private static boolean isPathCharacter(char c) {
        return Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-' || c == '/';
    }
}
