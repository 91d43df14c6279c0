package io.kdra.bench.grpc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link PrepareRoundTrip} with the plugin in a child JVM ({@link BenchDriverServer}), as a kubelet and a driver are
 * two processes. The CPU per call counts both processes.
 */
public class PrepareRoundTripTwoProcessBenchmark extends PrepareRoundTrip {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private Process server;

    @Override
    protected Path startServer(Path directory) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        server = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                BenchDriverServer.class.getName(), directory.toString()))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        return awaitReady();
    }

    /** Reads the child's first line, which names its socket once it serves. */
    private Path awaitReady() throws IOException {
        var reader = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        String line;
        try {
            line = CompletableFuture.supplyAsync(() -> readLine(reader))
                    .get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            line = null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            line = null;
        }
        if (line == null || !line.startsWith(BenchDriverServer.READY)) {
            server.destroyForcibly();
            throw new IOException("the plugin process did not serve within " + START_TIMEOUT + " (exit "
                    + exitCode() + "); first line: " + line);
        }
        return Path.of(line.substring(BenchDriverServer.READY.length()));
    }

    private static String readLine(BufferedReader reader) {
        try {
            return reader.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String exitCode() {
        try {
            return server.waitFor(5, TimeUnit.SECONDS) ? String.valueOf(server.exitValue()) : "none";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    @Override
    protected void stopServer() throws Exception {
        server.getOutputStream().close();
        if (!server.waitFor(30, TimeUnit.SECONDS)) {
            server.destroyForcibly().waitFor();
        }
    }

    @Override
    protected long serverProcessCpuNanos() {
        return server.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }
}
