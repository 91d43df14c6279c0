package io.kdra.bench;

import java.lang.management.ManagementFactory;

/**
 * The process CPU time spent per operation over an iteration. On a shared machine the throughput depends on how much
 * CPU the other processes leave; the CPU cost per operation does not, so it tells what 2 free cores would sustain.
 */
public final class CpuMeter {

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long cpuAtStart;
    private long operationsAtStart;

    public void start(long operations) {
        cpuAtStart = os.getProcessCpuTime();
        operationsAtStart = operations;
    }

    /** Prints the CPU per operation since {@link #start} next to JMH's iteration result. */
    public void report(long operations, String unit) {
        long done = operations - operationsAtStart;
        double cpuMicros = (os.getProcessCpuTime() - cpuAtStart) / 1e3;
        System.out.printf(" [process CPU per %s: %.1f us over %d; load average %.2f]", unit,
                cpuMicros / Math.max(1, done), done, os.getSystemLoadAverage());
    }
}
