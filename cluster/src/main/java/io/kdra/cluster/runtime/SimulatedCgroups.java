package io.kdra.cluster.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Cgroups as plain directories of the node: each group holds the files a cgroup v2 group would show with the
 * kubelet's values ({@link LinuxResources#cgroupV2Files()}), so that a container reads its values at
 * {@code /sys/fs/cgroup}; no process is placed anywhere and the kernel enforces nothing.
 */
public record SimulatedCgroups(Path root) implements Cgroups {

    public SimulatedCgroups {
        root = root.toAbsolutePath();
    }

    @Override
    public void apply(Path group, LinuxResources resources) throws IOException {
        Files.createDirectories(group);
        for (Map.Entry<String, String> file : resources.cgroupV2Files().entrySet()) {
            Files.writeString(group.resolve(file.getKey()), file.getValue() + "\n");
        }
    }

    @Override
    public void remove(Path group) throws IOException {
        FileTrees.delete(group);
    }

    @Override
    public List<String> placed(ContainerConfig container, List<String> command) {
        return command;
    }

    @Override
    public boolean placesProcesses() {
        return false;
    }

    /** The directories go with the node's. */
    @Override
    public void close() {}
}
