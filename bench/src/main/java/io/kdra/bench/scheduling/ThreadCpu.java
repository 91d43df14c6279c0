package io.kdra.bench.scheduling;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * CPU time per group of threads, a group being a thread name without its numbers ({@code vert.x-eventloop-thread-#}),
 * so a run shows which component's threads used the CPU. Threads that ended between two snapshots are missing.
 */
final class ThreadCpu {

    private static final Pattern NUMBERS = Pattern.compile("\\d+");
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ThreadCpu() {}

    static Map<Long, Long> snapshot() {
        Map<Long, Long> cpu = new HashMap<>();
        for (long id : THREADS.getAllThreadIds()) {
            long nanos = THREADS.getThreadCpuTime(id);
            if (nanos >= 0) {
                cpu.put(id, nanos);
            }
        }
        return cpu;
    }

    /** Seconds of CPU per thread group since {@code before}, largest first, groups under 1 % of the total dropped. */
    static Map<String, Double> since(Map<Long, Long> before) {
        Map<String, Long> groups = new HashMap<>();
        long total = 0;
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long nanos = THREADS.getThreadCpuTime(info.getThreadId());
            if (nanos < 0) {
                continue;
            }
            long used = nanos - before.getOrDefault(info.getThreadId(), 0L);
            total += used;
            groups.merge(NUMBERS.matcher(info.getThreadName()).replaceAll("#"), used, Long::sum);
        }
        long threshold = total / 100;
        Map<String, Double> seconds = new LinkedHashMap<>();
        groups.entrySet().stream().filter(e -> e.getValue() >= threshold)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> seconds.put(e.getKey(), Math.round(e.getValue() / 1e7) / 100.0));
        return seconds;
    }
}
