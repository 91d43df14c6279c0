package io.kdra.cluster.runtime;

import io.kdra.cluster.runtime.cdi.CdiEdits;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One container instance on this machine: either a process of the invoking user, or, for a container without a
 * command (and every container of the noop runtime), nothing that runs, idling like a pause container until stopped.
 */
final class LocalContainer implements RunningContainer {

    /** What the pause container exits with when it is stopped. */
    private static final int PAUSE_EXIT_CODE = 0;

    private final ContainerConfig config;
    private final Instant startedAt = Instant.now();
    private final Map<String, String> environment;
    private final Path workingDirectory;
    private final CdiEdits cdiEdits;
    private final ContainerPaths paths;
    private final ContainerLog log;
    private final Process process;
    private final ScheduledExecutorService timers;
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final Set<Process> execs = ConcurrentHashMap.newKeySet();
    private final List<ProcessHandle> stopped = new CopyOnWriteArrayList<>();
    private final List<ScheduledFuture<?>> kills = new CopyOnWriteArrayList<>();
    private final AtomicBoolean ending = new AtomicBoolean();

    private LocalContainer(ContainerConfig config, Map<String, String> environment, Path workingDirectory,
            CdiEdits cdiEdits, ContainerPaths paths, ContainerLog log, Process process,
            ScheduledExecutorService timers) {
        this.config = config;
        this.environment = Map.copyOf(environment);
        this.workingDirectory = workingDirectory;
        this.cdiEdits = cdiEdits;
        this.paths = paths;
        this.log = log;
        this.process = process;
        this.timers = timers;
    }

    /** An instance with nothing running, ended only by {@link #stop}. */
    static LocalContainer idle(ContainerConfig config, Map<String, String> environment, Path workingDirectory,
            CdiEdits cdiEdits, ContainerPaths paths) {
        return new LocalContainer(config, environment, workingDirectory, cdiEdits, paths, ContainerLog.empty(), null,
                null);
    }

    /** An instance that is a started process; its output goes to {@code log} through a pump run elsewhere. */
    static LocalContainer process(ContainerConfig config, Map<String, String> environment, Path workingDirectory,
            CdiEdits cdiEdits, ContainerPaths paths, ContainerLog log, Process process,
            ScheduledExecutorService timers) {
        LocalContainer container =
                new LocalContainer(config, environment, workingDirectory, cdiEdits, paths, log, process, timers);
        process.onExit().thenAccept(exited -> container.ended(exited.exitValue()));
        return container;
    }

    @Override
    public ContainerConfig config() {
        return config;
    }

    @Override
    public Instant startedAt() {
        return startedAt;
    }

    @Override
    public CompletableFuture<Integer> exit() {
        return exit;
    }

    /** The environment the container and its exec'd commands get: base, pod, then CDI variables. */
    Map<String, String> environment() {
        return environment;
    }

    /** The edits of the container's CDI devices: what it would see in a real runtime. */
    CdiEdits cdiEdits() {
        return cdiEdits;
    }

    ContainerLog log() {
        return log;
    }

    /** The process, or null for an idle instance. */
    Process process() {
        return process;
    }

    boolean running() {
        return !exit.isDone();
    }

    @Override
    public void stop(Duration gracePeriod) {
        if (exit.isDone()) {
            return;
        }
        if (process == null) {
            ended(PAUSE_EXIT_CODE);
            return;
        }
        // a real container's other processes die with its first one (its PID namespace ends): remember them now,
        // while they are still the first process's descendants
        process.descendants().forEach(stopped::add);
        // through the handle: Process.destroy() would also close the output pipe before the pump has read it all
        process.toHandle().destroy();
        if (gracePeriod.isZero() || gracePeriod.isNegative()) {
            kill();
        } else {
            kills.add(timers.schedule(this::kill, gracePeriod.toMillis(), TimeUnit.MILLISECONDS));
        }
    }

    /** SIGKILL for the process and everything it started. */
    void kill() {
        if (process == null) {
            ended(PAUSE_EXIT_CODE);
            return;
        }
        process.descendants().forEach(stopped::add);
        stopped.forEach(ProcessHandle::destroyForcibly);
        process.toHandle().destroyForcibly();
    }

    /**
     * Starts a command in this container's environment and working directory; it dies with the container. Arguments
     * that name paths below the container's CDI or volume mounts or its cgroup name the host's instead, as the
     * container would see them through its mount namespace. It runs in the container's cgroup when the cgroups place
     * processes.
     */
    Process exec(List<String> command, Cgroups cgroups) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(cgroups.placed(config, paths.rewrite(command)))
                .directory(workingDirectory.toFile());
        builder.environment().clear();
        builder.environment().putAll(environment);
        return adopt(builder.start());
    }

    /** Makes a command started for this container die with it. */
    Process adopt(Process started) {
        execs.add(started);
        started.onExit().thenRun(() -> execs.remove(started));
        if (ending.get()) {
            // the container ended while the command started
            killTree(started);
        }
        return started;
    }

    private void ended(int exitCode) {
        if (!ending.compareAndSet(false, true)) {
            return;
        }
        stopped.forEach(ProcessHandle::destroyForcibly);
        kills.forEach(kill -> kill.cancel(false));
        execs.forEach(LocalContainer::killTree);
        exit.complete(exitCode);
        log.instanceEnded();
    }

    private static void killTree(Process process) {
        if (process instanceof HostPathPluginProxy inJvm) {
            inJvm.destroy();
            return;
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.toHandle().destroyForcibly();
    }

    @Override
    public String toString() {
        return config.id() + " attempt " + config.attempt() + (process == null ? " (idle)" : " pid " + process.pid());
    }
}
