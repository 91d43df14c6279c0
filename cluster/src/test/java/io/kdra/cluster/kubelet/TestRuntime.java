package io.kdra.cluster.kubelet;

import io.kdra.cluster.kubelet.server.ContainerStreams;
import io.kdra.cluster.kubelet.server.LogOptions;
import io.kdra.cluster.runtime.ContainerConfig;
import io.kdra.cluster.runtime.ContainerRuntime;
import io.kdra.cluster.runtime.RunningContainer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A minimal stand-in for the process runtime (helper "runtime" builds the real one): a container runs its command as
 * a local process ({@code sleep} when it has none) with the pod's environment plus the env edits of its CDI devices,
 * read from the node's CDI directory (JSON specs only). It records what it started, so tests can check environments
 * and CDI IDs.
 */
final class TestRuntime implements ContainerRuntime {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Path cdiDirectory;
    private final List<Instance> instances = new CopyOnWriteArrayList<>();

    TestRuntime(Path cdiDirectory) {
        this.cdiDirectory = cdiDirectory;
    }

    /** Every instance started, oldest first. */
    List<Instance> started() {
        return List.copyOf(instances);
    }

    /** The latest instance of a pod's container, or null. */
    Instance latest(String namespace, String pod, String container) {
        Instance found = null;
        for (Instance instance : instances) {
            var id = instance.config().id();
            if (id.namespace().equals(namespace) && id.pod().equals(pod) && id.container().equals(container)) {
                found = instance;
            }
        }
        return found;
    }

    @Override
    public RunningContainer start(ContainerConfig config) throws ContainerStartException {
        Map<String, String> env = new LinkedHashMap<>(config.env());
        for (String id : config.cdiDevices()) {
            env.putAll(cdiEnv(id));
        }
        List<String> command = config.command().isEmpty() ? List.of("sleep", "100000") : config.command();
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        String path = builder.environment().get("PATH");
        builder.environment().clear();
        builder.environment().put("PATH", path == null ? "/usr/bin:/bin" : path);
        builder.environment().putAll(env);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new ContainerStartException("failed to start " + command + ": " + e.getMessage(), e);
        }
        Instance instance = new Instance(config, Map.copyOf(env), process, Instant.now(),
                process.onExit().thenApply(Process::exitValue));
        instances.add(instance);
        return instance;
    }

    private Map<String, String> cdiEnv(String id) throws ContainerStartException {
        int equals = id.indexOf('=');
        String kind = equals < 0 ? id : id.substring(0, equals);
        String device = equals < 0 ? "" : id.substring(equals + 1);
        try (Stream<Path> files = Files.list(cdiDirectory)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                JsonNode spec = JSON.readTree(Files.readString(file));
                if (!kind.equals(spec.path("kind").asString())) {
                    continue;
                }
                for (JsonNode entry : spec.path("devices")) {
                    if (device.equals(entry.path("name").asString())) {
                        Map<String, String> env = new HashMap<>();
                        for (JsonNode variable : entry.path("containerEdits").path("env")) {
                            String[] parts = variable.asString().split("=", 2);
                            env.put(parts[0], parts.length > 1 ? parts[1] : "");
                        }
                        return env;
                    }
                }
            }
        } catch (IOException e) {
            throw new ContainerStartException("reading CDI specs: " + e.getMessage(), e);
        }
        throw new ContainerStartException("failed to inject CDI devices: unresolvable CDI devices " + id);
    }

    @Override
    public List<RunningContainer> running() {
        List<RunningContainer> running = new ArrayList<>();
        for (Instance instance : instances) {
            if (!instance.exit().isDone()) {
                running.add(instance);
            }
        }
        return running;
    }

    @Override
    public InputStream logs(ContainerStreams.PodContainer target, LogOptions options)
            throws ContainerNotFoundException {
        throw new ContainerNotFoundException("the test runtime keeps no logs");
    }

    @Override
    public Process exec(ContainerStreams.PodContainer target, List<String> command)
            throws ContainerNotFoundException {
        throw new ContainerNotFoundException("the test runtime has no exec");
    }

    @Override
    public void close() {
        instances.forEach(instance -> instance.process().destroyForcibly());
    }

    /** One started container instance: a process. */
    record Instance(ContainerConfig config, Map<String, String> env, Process process, Instant startedAt,
            CompletableFuture<Integer> exit) implements RunningContainer {

        @Override
        public void stop(Duration gracePeriod) {
            process.destroy();
            CompletableFuture.delayedExecutor(gracePeriod.toMillis(), TimeUnit.MILLISECONDS)
                    .execute(process::destroyForcibly);
        }
    }
}
