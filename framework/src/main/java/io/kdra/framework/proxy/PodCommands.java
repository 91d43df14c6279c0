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

/** Commands in the first container of one proxy pod, through {@code pods/exec}. */
final class PodCommands {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(1);

    private final KubernetesClient client;
    private final String namespace;
    private final String pod;
    private final String container;

    PodCommands(KubernetesClient client, String namespace, String pod, String container) {
        this.client = client;
        this.namespace = namespace;
        this.pod = pod;
        this.container = container;
    }

    String pod() {
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
        try (ExecWatch watch = start(output, List.of(command))) {
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

    /** Starts a command whose output and errors go to {@code output}; the caller closes the watch to end it. */
    ExecWatch start(OutputStream output, List<String> command) {
        return client.pods().inNamespace(namespace).withName(pod).inContainer(container)
                .writingOutput(output).writingError(output).exec(command.toArray(String[]::new));
    }

    private String describe(String... command) {
        return "exec in pod " + namespace + "/" + pod + " of " + String.join(" ", command);
    }
}
