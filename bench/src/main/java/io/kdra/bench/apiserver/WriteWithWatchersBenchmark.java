package io.kdra.bench.apiserver;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/** Creates over HTTP while 10 HTTP watchers stream every event of the resource (target: 5,000 writes/s). */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class WriteWithWatchersBenchmark {

    private static final int WATCHERS = 10;

    private RunningServer server;
    private final List<Thread> readers = new ArrayList<>();
    private final AtomicLong names = new AtomicLong();

    @Setup(Level.Trial)
    public void start() throws Exception {
        server = new RunningServer();
        for (int i = 0; i < WATCHERS; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(server.server.url()
                    + "/api/v1/namespaces/default/configmaps?watch=1"))
                    .header("Authorization", "Bearer " + server.server.adminToken()).build();
            HttpResponse<InputStream> response = server.http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            Thread reader = new Thread(() -> {
                try (InputStream stream = response.body()) {
                    stream.transferTo(OutputStream.nullOutputStream());
                } catch (java.io.IOException e) {
                    // the watch ends with the server
                }
            });
            reader.setDaemon(true);
            reader.start();
            readers.add(reader);
        }
    }

    @Benchmark
    public void create() {
        server.send("POST", "/api/v1/namespaces/default/configmaps",
                RunningServer.configMap("cm-" + names.incrementAndGet()));
    }

    @TearDown(Level.Trial)
    public void stop() {
        server.close();
    }
}
