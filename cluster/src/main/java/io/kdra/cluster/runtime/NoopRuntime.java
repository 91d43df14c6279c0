package io.kdra.cluster.runtime;

import io.kdra.cluster.runtime.cdi.CdiEdits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The runtime for scale: every container is running at once and runs nothing until stopped (then it exits 0, as a
 * pause container), its log is empty, and it keeps no files but a container's {@code oom_score_adj} and its simulated
 * cgroup. CDI devices are still resolved (an unresolvable one still fails the start), and exec still runs the command as a process of the invoking user with the container's
 * environment, in the runtime directory, so that {@code kubectl exec -- env} shows the CDI variables at any scale.
 */
public final class NoopRuntime extends LocalRuntime {

    private final Path directory;

    /**
     * @param cdiDirectory the node's CDI spec directory
     * @param directory the working directory and {@code HOME} of exec'd commands; created now, removed by
     *     {@link #close()}
     * @param cgroups the node's cgroups: simulated, as no container runs a process to place
     */
    public NoopRuntime(Path cdiDirectory, Path directory, SimulatedCgroups cgroups) {
        super(cdiDirectory, cgroups);
        this.directory = directory.toAbsolutePath();
        try {
            Files.createDirectories(this.directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create runtime directory " + directory, e);
        }
    }

    @Override
    LocalContainer launch(ContainerConfig config, CdiEdits edits, ContainerPaths paths) {
        return LocalContainer.idle(config, environment(config, edits, directory), directory, edits, paths);
    }

    /** Only a container with a cgroup has files: its {@code oom_score_adj}. */
    @Override
    Path stateDirectory(ContainerConfig config) {
        return directory.resolve(config.podUid()).resolve(config.id().container());
    }

    @Override
    void removed(String podUid) {
        deleteTree(directory.resolve(podUid));
    }

    @Override
    void closed() {
        deleteTree(directory);
    }
}
