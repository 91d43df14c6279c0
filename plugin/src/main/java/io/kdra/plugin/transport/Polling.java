package io.kdra.plugin.transport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * How long a thread that waits for gRPC work polls before it sleeps, and when it should.
 *
 * <p>A Java thread that sleeps in {@code epoll_wait} or {@code park} costs a wake-up when work arrives, and on a
 * virtual machine whose other vCPU is idle that wake-up is the largest part of a kubelet-to-plugin round trip
 * (docs/kubelet-plugin-library.md, "Where the time goes"); Go's scheduler avoids it by spinning before it parks. A
 * poll yields the core at each turn, so a thread that has work to do runs first. It only pays while calls follow each
 * other closely on a machine with cores to spare, so polls that find nothing make the next ones rarer, and a poll
 * stops as soon as the thread is kept from running: an idle plugin or a busy machine goes back to plain sleeping.
 *
 * <p>The window is 50 µs for event loops and twice that for a caller waiting for its answer; the system property
 * {@code kdra.grpc.pollMicros} sets the first, and 0 turns polling off.
 */
final class Polling {

    static final long WINDOW_NANOS = TimeUnit.MICROSECONDS.toNanos(Long.getLong("kdra.grpc.pollMicros", 50));
    /**
     * A polling thread that did not run for longer than this gave its core to a thread that ran a whole time slice,
     * not to a peer that hands it work within microseconds: the machine is busy, and polling would only take cores
     * from others.
     */
    private static final long BUSY_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    private static final Path LOADAVG = Path.of("/proc/loadavg");
    private static final long LOAD_SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    private static volatile long loadSampledAt = System.nanoTime() - LOAD_SAMPLE_NANOS;
    private static volatile boolean spareCores = true;

    private Polling() {
    }

    /**
     * Whether polling is on and the machine has cores to spare: no more runnable threads than cores plus one (a
     * polling thread, its peer at work and the thread that reads the count). A polling thread that is not needed
     * takes a core from others, and under the kernel's fair scheduler the CPU it burns also makes it wait longer
     * behind them when its work comes. Sampled from /proc/loadavg at most every 2 ms.
     */
    static boolean worthPolling() {
        if (WINDOW_NANOS <= 0) {
            return false;
        }
        long now = System.nanoTime();
        if (now - loadSampledAt > LOAD_SAMPLE_NANOS) {
            loadSampledAt = now;
            spareCores = runnableThreads() <= CORES + 1;
        }
        return spareCores;
    }

    /** The kernel's count of runnable threads, or 0 where /proc/loadavg cannot say. */
    private static int runnableThreads() {
        try {
            String line = Files.readString(LOADAVG);
            int slash = line.indexOf('/');
            int start = line.lastIndexOf(' ', slash) + 1;
            return slash > start ? Integer.parseInt(line.substring(start, slash)) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * Polls until {@code found} says there is work, yielding the core between looks.
     *
     * @return false when the window passed first, or when the thread once did not run for so long that the machine
     *     looks busy (it gave its core away for a time slice, or was preempted): the caller should then sleep
     */
    static boolean poll(BooleanSupplier found, long windowNanos) {
        long start = System.nanoTime();
        long last = start;
        while (!found.getAsBoolean()) {
            Thread.yield();
            long now = System.nanoTime();
            if (now - last > BUSY_NANOS || now - start > windowNanos) {
                return false;
            }
            last = now;
        }
        return true;
    }
}
