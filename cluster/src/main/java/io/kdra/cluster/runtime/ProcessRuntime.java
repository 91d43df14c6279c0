package io.kdra.cluster.runtime;

import io.kdra.cluster.runtime.cdi.CdiEdits;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default runtime: a container with a command is a process of the user running kdra, started directly (no shell
 * unless the command is one) in a directory of its own, with the pod's and the CDI devices' environment. This is no
 * isolation at all: the process sees the whole machine, with the invoking user's rights.
 *
 * <p>Files, under the runtime directory: {@code <pod uid>/<container>/home/} is the container's working directory and
 * {@code HOME}; {@code home/.kdra/cdi.json} holds its CDI edits ({@link CdiEdits#toJson()}), including the mounts and
 * device nodes a local process cannot get; {@code <pod uid>/<container>/<attempt>.log} is an instance's output (stdout
 * and stderr in one pipe, so in the order written, all tagged {@code stdout}) in the CRI log format. A container
 * without a command runs nothing and idles like a pause container until stopped.
 *
 * <p>With {@link KernelCgroups}, a container's command and what is exec'd in it enter the container's cgroup v2 group
 * and take its {@code oom_score_adj} before they exec, so the kernel enforces its CPU, memory and hugepage limits; that
 * is all the isolation there is.
 *
 * <p>Without a mount namespace, CDI mounts are reached through their host paths: the container's command and the
 * commands exec'd in it get the host path wherever they name a mount's container path ({@link ContainerPaths}).
 */
public final class ProcessRuntime extends LocalRuntime {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessRuntime.class);
    private static final String RUNC_START_FAILED = "failed to create containerd task: failed to create shim task: "
            + "OCI runtime create failed: runc create failed: unable to start container process: ";

    private final Path directory;
    private final ScheduledExecutorService timers;
    private final Executor outputPumps;

    /**
     * @param cdiDirectory the node's CDI spec directory
     * @param directory the runtime's own directory (for example {@code <node root>/containers}); created when needed,
     *     removed by {@link #close()}
     * @param cgroups the node's cgroups; with {@link KernelCgroups} every container process runs in its cgroup
     * @param timers runs the SIGKILL at the end of a grace period; may be shared by many runtimes
     * @param outputPumps runs one task per running process that copies its output into its log for as long as the
     *     process writes: it must not bound its thread count (a cached thread pool, shared by many runtimes)
     */
    public ProcessRuntime(Path cdiDirectory, Path directory, Cgroups cgroups, ScheduledExecutorService timers,
            Executor outputPumps) {
        super(cdiDirectory, cgroups);
        this.directory = directory.toAbsolutePath();
        this.timers = timers;
        this.outputPumps = outputPumps;
    }

    @Override
    LocalContainer launch(ContainerConfig config, CdiEdits edits, ContainerPaths paths)
            throws ContainerStartException {
        Path containerDirectory = containerDirectory(config);
        Path home = containerDirectory.resolve("home");
        try {
            Files.createDirectories(home.resolve(".kdra"));
            Files.write(home.resolve(".kdra").resolve("cdi.json"), edits.toJson());
        } catch (IOException e) {
            throw new ContainerStartException("failed to create container directory " + home + ": " + e, e);
        }
        Map<String, String> environment = environment(config, edits, home);
        if (config.command().isEmpty()) {
            return LocalContainer.idle(config, environment, home, edits, paths);
        }
        ContainerLog log;
        try {
            log = ContainerLog.create(containerDirectory.resolve(config.attempt() + ".log"));
        } catch (IOException e) {
            throw new ContainerStartException("failed to create container log: " + e, e);
        }
        Process process;
        try {
            ProcessBuilder builder = new ProcessBuilder(cgroups().placed(config, paths.rewrite(config.command())))
                    .directory(home.toFile())
                    .redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            builder.environment().clear();
            builder.environment().putAll(environment);
            process = builder.start();
        } catch (IOException e) {
            throw new ContainerStartException(RUNC_START_FAILED + execFailure(config.command().get(0), e)
                    + ": unknown", e);
        }
        LocalContainer container =
                LocalContainer.process(config, environment, home, edits, paths, log, process, timers);
        try {
            outputPumps.execute(() -> log.pump(process.getInputStream()));
        } catch (RejectedExecutionException e) {
            container.kill();
            throw new ContainerStartException("cannot read the output of container " + config.id() + ": " + e, e);
        }
        LOG.debug("started {} as pid {}", config.id(), process.pid());
        return container;
    }

    @Override
    Path stateDirectory(ContainerConfig config) {
        return containerDirectory(config).resolve("proc");
    }

    @Override
    void discard(LocalContainer instance) {
        Path file = instance.log().file();
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.warn("could not remove log {}: {}", file, e.toString());
            }
        }
    }

    @Override
    void removed(String podUid) {
        deleteTree(directory.resolve(podUid));
    }

    @Override
    void closed() {
        deleteTree(directory);
    }

    private Path containerDirectory(ContainerConfig config) {
        return directory.resolve(config.podUid()).resolve(config.id().container());
    }

    /** What runc says when it cannot exec the container's command, as far as Java tells the reason. */
    private static String execFailure(String executable, IOException e) {
        String message = String.valueOf(e.getMessage());
        if (message.contains("error=2,")) {
            return executable.contains("/")
                    ? "exec: \"" + executable + "\": stat " + executable + ": no such file or directory"
                    : "exec: \"" + executable + "\": executable file not found in $PATH";
        }
        if (message.contains("error=13,")) {
            return "exec: \"" + executable + "\": permission denied";
        }
        return "exec: \"" + executable + "\": " + message;
    }
}
