package io.kdra.bench.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** scheduler_perf's sampling rules, with the clock given. */
class ThroughputSamplesTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void skipsTheFirstSampleAndMergesSecondsWithoutProgressIntoTheNext() {
        ThroughputSamples samples = new ThroughputSamples();
        samples.sample(0, 0);               // nothing scheduled yet: not a sample
        samples.sample(5, SECOND);          // the first count: skipped
        samples.sample(15, 2 * SECOND);     // 10/s
        samples.sample(15, 3 * SECOND);     // no progress: merged into the next
        samples.sample(55, 4 * SECOND);     // 40 pods in 2 s: 20/s, recorded twice
        samples.sample(95, 5 * SECOND);     // 40/s

        Throughput summary = samples.summary();

        assertThat(summary.samples()).isEqualTo(4);
        assertThat(summary.average()).isEqualTo(22.5);
        assertThat(summary.perc50()).isEqualTo(20.0);
        assertThat(summary.perc90()).isEqualTo(40.0);
        assertThat(summary.perc99()).isEqualTo(40.0);
    }

    @Test
    void noProgressAtAllIsAnEmptySummary() {
        ThroughputSamples samples = new ThroughputSamples();
        samples.sample(0, SECOND);
        samples.sample(0, 2 * SECOND);

        assertThat(samples.summary()).isEqualTo(new Throughput(0, 0, 0, 0, 0, 0));
    }
}
