package io.kdra.bench;

import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * The process CPU time spent per operation over an iteration. On a shared machine the throughput depends on how much
 * CPU the other processes leave; the CPU cost per operation does not, so it tells what 2 free cores would sustain.
 */
public final class CpuMeter {

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final LongSupplier otherProcessesCpuNanos;
    private long cpuAtStart;
    private long operationsAtStart;

    /** Counts this process's CPU. */
    public CpuMeter() {
        this(() -> 0);
    }

    /** Counts this process's CPU and what {@code otherProcessesCpuNanos} reports, e.g. a server in a child process. */
    public CpuMeter(LongSupplier otherProcessesCpuNanos) {
        this.otherProcessesCpuNanos = otherProcessesCpuNanos;
    }

    public void start(long operations) {
        cpuAtStart = cpuNanos();
        operationsAtStart = operations;
    }

    private long cpuNanos() {
        return os.getProcessCpuTime() + otherProcessesCpuNanos.getAsLong();
    }

    /** Prints the CPU per operation since {@link #start} next to JMH's iteration result. */
    public void report(long operations, String unit) {
        long done = operations - operationsAtStart;
        double cpuMicros = (cpuNanos() - cpuAtStart) / 1e3;
        System.out.printf(" [process CPU per %s: %.1f us over %d; load average %.2f]", unit,
                cpuMicros / Math.max(1, done), done, os.getSystemLoadAverage());
    }
}
