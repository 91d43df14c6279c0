package io.kdra.bench.scheduling;

import java.util.ArrayList;
import java.util.List;

/**
 * scheduler_perf's throughput collector: every second the number of pods that reached a state (scheduled, Running)
 * is sampled; the first sample after the count left zero is skipped (pod creation and sampling start independently),
 * a second without progress is not recorded as zero but merged into the next sample with progress, whose rate then
 * counts once per second it covers. The summary is the mean and the nearest-rank percentiles of the samples.
 */
final class ThroughputSamples {

    private final List<Double> samples = new ArrayList<>();
    private boolean started;
    private long lastCount;
    private long lastNanos;
    private int skipped;

    /** Records the count at one tick of the 1-second sampler. */
    synchronized void sample(long count, long nanos) {
        if (count == 0) {
            return;
        }
        if (!started) {
            started = true;
            lastCount = count;
            lastNanos = nanos;
            return;
        }
        long added = count - lastCount;
        if (added == 0) {
            skipped++;
            return;
        }
        double rate = added / ((nanos - lastNanos) / 1e9);
        for (int i = 0; i <= skipped; i++) {
            samples.add(rate);
        }
        lastCount = count;
        lastNanos = nanos;
        skipped = 0;
    }

    synchronized Throughput summary() {
        if (samples.isEmpty()) {
            return new Throughput(0, 0, 0, 0, 0, 0);
        }
        List<Double> sorted = new ArrayList<>(samples);
        sorted.sort(null);
        double sum = sorted.stream().mapToDouble(Double::doubleValue).sum();
        return new Throughput(round(sum / sorted.size()), percentile(sorted, 50), percentile(sorted, 90),
                percentile(sorted, 95), percentile(sorted, 99), sorted.size());
    }

    private static double percentile(List<Double> sorted, int percent) {
        return round(sorted.get((int) Math.ceil(sorted.size() * percent / 100.0) - 1));
    }

    static double round(double value) {
        return Math.round(value * 10) / 10.0;
    }
}
