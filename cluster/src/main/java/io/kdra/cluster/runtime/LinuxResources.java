package io.kdra.cluster.runtime;

import java.util.Map;
import java.util.TreeMap;

/**
 * The resources of a pod's or a container's cgroup as the kubelet hands them to the runtime (the CRI's
 * {@code LinuxContainerResources}), with the container's {@code oom_score_adj}.
 *
 * @param cpuShares cgroup v1 CPU shares, 2..262144 ({@code cpu.weight} is derived from them)
 * @param cpuQuota CFS quota in microseconds per {@link #CPU_PERIOD}, or -1 for no limit
 * @param memoryLimit bytes, or 0 for no limit
 * @param hugepageLimits bytes by page size as the kernel names it ({@code 2MB}, {@code 1GB})
 * @param oomScoreAdj the container's {@code oom_score_adj}; meaningless for a pod's cgroup
 */
public record LinuxResources(long cpuShares, long cpuQuota, long memoryLimit, Map<String, Long> hugepageLimits,
        int oomScoreAdj) {

    /** The CFS period the kubelet uses, 100 ms. */
    public static final long CPU_PERIOD = 100_000;

    /** 1/ln 2, as Go's constant rounds it. */
    private static final double LOG2_E = 1.4426950408889634074;

    public LinuxResources {
        hugepageLimits = Map.copyOf(hugepageLimits);
    }

    /**
     * The files of a cgroup v2 directory with these values, by name: {@code cpu.weight} from the shares with runc's
     * current conversion, {@code cpu.max}, {@code memory.max}, one {@code hugetlb.<size>.max} per page size, and
     * {@code cgroup.controllers}, by which a reader tells cgroup v2 from v1.
     */
    public Map<String, String> cgroupV2Files() {
        Map<String, String> files = new TreeMap<>();
        files.put("cgroup.controllers", "cpu memory hugetlb");
        files.put("cpu.weight", Long.toString(cpuWeight(cpuShares)));
        files.put("cpu.max", (cpuQuota < 0 ? "max" : Long.toString(cpuQuota)) + " " + CPU_PERIOD);
        files.put("memory.max", memoryLimit == 0 ? "max" : Long.toString(memoryLimit));
        hugepageLimits.forEach((size, limit) -> files.put("hugetlb." + size + ".max", Long.toString(limit)));
        return files;
    }

    /**
     * cgroup v2's {@code cpu.weight} for cgroup v1 shares, as runc converts them since 1.3.2: a quadratic in log2 of
     * the shares through (2, 1), (1024, 100) and (262144, 10000), rounded up.
     */
    static long cpuWeight(long shares) {
        if (shares == 0) {
            return 0;
        }
        if (shares <= 2) {
            return 1;
        }
        if (shares >= 262144) {
            return 10000;
        }
        double log = log2(shares);
        double exponent = (log * log + 125 * log) / 612.0 - 7.0 / 34.0;
        return (long) Math.ceil(StrictMath.pow(10, exponent));
    }

    /** log2 as Go computes it: exact for powers of two (1024 shares must give weight 100, not 101). */
    private static double log2(long value) {
        if (Long.bitCount(value) == 1) {
            return Long.numberOfTrailingZeros(value);
        }
        int exponent = Math.getExponent((double) value) + 1;
        double fraction = value / Math.scalb(1.0, exponent);
        return StrictMath.log(fraction) * LOG2_E + exponent;
    }
}
