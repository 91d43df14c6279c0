package io.kdra.bench.scheduling;

import io.kdra.cluster.ClusterNode;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.cluster.RuntimeKind;
import io.kdra.cluster.Timing;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * How long an {@link EmbeddedCluster} takes from {@code start()} until every node is Ready: the first start in a fresh
 * JVM (classes loaded, code interpreted: what {@code kdra cluster up} and the first test of a suite pay), then further
 * starts in the same JVM. Optionally each node also gets a DRA driver, registered with its kubelet and its
 * ResourceSlice published, as {@code kdra cluster up} does by default.
 */
public final class StartBenchmark {

    /**
     * @param seconds the start time of each run, the first being the cold one
     * @param jvmUptimeAtFirstReadySeconds from the JVM's start until the first cluster was Ready
     */
    public record Result(int nodes, boolean withDrivers, String runtime, List<Double> seconds,
            double jvmUptimeAtFirstReadySeconds, double loadAverageAtStart, double loadAverageAtEnd) {

        public double cold() {
            return seconds.get(0);
        }

        public double bestWarm() {
            return seconds.stream().skip(1).mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        }
    }

    private StartBenchmark() {}

    /**
     * @param runs how many clusters are started one after the other (each closed before the next)
     * @param eachRun called with each run's seconds
     */
    public static Result run(int nodes, int runs, boolean withDrivers, RuntimeKind runtime, Timing timing,
            Consumer<Double> eachRun)
            throws Exception {
        var os = ManagementFactory.getOperatingSystemMXBean();
        double loadAtStart = os.getSystemLoadAverage();
        List<Double> seconds = new ArrayList<>();
        double uptimeAtFirstReady = 0;
        for (int run = 0; run < runs; run++) {
            long begin = System.nanoTime();
            List<NodeDriver> drivers = new ArrayList<>();
            try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(nodes).runtime(runtime).timing(timing)
                    .start()) {
                try {
                    if (withDrivers) {
                        for (ClusterNode node : cluster.nodes()) {
                            drivers.add(NodeDriver.start(node, 8));
                        }
                        while (!drivers.stream().allMatch(NodeDriver::isRegistered)) {
                            Thread.sleep(5);
                        }
                    }
                    double took = (System.nanoTime() - begin) / 1e9;
                    seconds.add(Math.round(took * 1000) / 1000.0);
                    if (run == 0) {
                        uptimeAtFirstReady = ManagementFactory.getRuntimeMXBean().getUptime() / 1000.0;
                    }
                    eachRun.accept(took);
                } finally {
                    drivers.forEach(NodeDriver::close);
                }
            }
        }
        return new Result(nodes, withDrivers, runtime.cliName(), seconds, uptimeAtFirstReady, loadAtStart,
                os.getSystemLoadAverage());
    }
}
