package io.kdra.bench.grpc;

import io.kdra.plugin.KubeletPlugin;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link PrepareRoundTrip} with client and plugin in this JVM, sharing its cores, as the Go reference runs both in one
 * process.
 */
public class PrepareRoundTripBenchmark extends PrepareRoundTrip {

    private KubeletPlugin plugin;

    @Override
    protected Path startServer(Path directory) throws IOException {
        plugin = BenchDriver.startPlugin(directory, new LongAdder());
        return plugin.draSocket();
    }

    @Override
    protected void stopServer() {
        plugin.stop();
    }

    @Override
    protected long serverProcessCpuNanos() {
        return 0;
    }
}
