package io.kdra.framework.proxy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Commands in the container of a node's proxy pod (the one running now), through {@code pods/exec}. */
final class PodCommands {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(1);

    private final KubernetesClient client;
    private final ProxyPod pod;
    private final String container;

    PodCommands(KubernetesClient client, ProxyPod pod, String container) {
        this.client = client;
        this.pod = pod;
        this.container = container;
    }

    ProxyPod pod() {
        return pod;
    }

    /**
     * Runs a command to its end.
     *
     * @throws IOException when it cannot run, does not end within a minute, or exits with another code than 0; the
     *     message holds its output
     */
    void run(String... command) throws IOException {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int exitCode;
        String podName = pod.name();
        try (ExecWatch watch = start(podName, output, List.of(command))) {
            exitCode = watch.exitCode().get(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            throw new IOException(describe(command) + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(describe(command) + " was interrupted", e);
        }
        if (exitCode != 0) {
            throw new IOException(String.format("%s exited with %d: %s", describe(command), exitCode,
                    output.toString(StandardCharsets.UTF_8).trim()));
        }
    }

    /**
     * Starts a command in the given pod (one {@link ProxyPod#name()} gave) whose output and errors go to
     * {@code output}; the caller closes the watch to end it.
     */
    ExecWatch start(String podName, OutputStream output, List<String> command) {
        return client.pods().inNamespace(pod.namespace()).withName(podName).inContainer(container)
                .writingOutput(output).writingError(output).exec(command.toArray(String[]::new));
    }

    private String describe(String... command) {
        return "exec in pod " + pod.namespace() + "/" + pod.lastName() + " of " + String.join(" ", command);
    }
}
