package io.kdra.bench.grpc;

import io.kdra.plugin.KubeletPlugin;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@link BenchDriver} plugin as a process of its own: prints {@value #READY} and its DRA socket once it serves,
 * and stops when its standard input ends.
 */
public final class BenchDriverServer {

    static final String READY = "serving ";

    private BenchDriverServer() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: BenchDriverServer DIRECTORY");
            System.exit(2);
        }
        KubeletPlugin plugin = BenchDriver.startPlugin(Path.of(args[0]), new LongAdder());
        try {
            System.out.println(READY + plugin.draSocket());
            System.out.flush();
            while (System.in.read() >= 0) {
                // the parent never writes; end of input means it is done
            }
        } finally {
            plugin.stop();
        }
    }
}
