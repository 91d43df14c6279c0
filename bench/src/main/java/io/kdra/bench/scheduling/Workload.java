package io.kdra.bench.scheduling;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One workload of upstream scheduler_perf's DRA test cases ({@code test/integration/scheduler_perf/dra}), by its
 * upstream name {@code <TestCase>/<workload>}.
 *
 * <ul>
 *   <li>{@code SchedulingWithResourceClaimTemplate}: {@code initPods} pods with a one-device template claim are
 *       created and scheduled first, then {@code measurePods} more are created and their scheduling is measured.</li>
 *   <li>{@code SteadyStateClusterResourceClaimTemplate}: {@code initClaims} claims are created and allocated first
 *       (no pods), then {@code steadyPods} pods are kept in flight for {@code steadyDuration}: each pod that is
 *       scheduled is deleted and replaced by a new one.</li>
 * </ul>
 *
 * @param nodes nodes, each with one driver publishing {@code devicesPerNode} devices (upstream's
 *     {@code maxClaimsPerNode})
 */
public record Workload(String testCase, String name, int nodes, int devicesPerNode, int initPods, int measurePods,
        int initClaims, int steadyPods, Duration steadyDuration) {

    public static final String SCHEDULING = "SchedulingWithResourceClaimTemplate";
    public static final String STEADY_STATE = "SteadyStateClusterResourceClaimTemplate";

    /** Every workload kdra runs, in upstream's order. */
    public static final List<Workload> ALL = catalogue();

    public Workload {
        if (nodes < 1 || devicesPerNode < 1) {
            throw new IllegalArgumentException("a workload needs at least one node and one device per node");
        }
        if (initPods < 0 || measurePods < 0 || initClaims < 0 || steadyPods < 0) {
            throw new IllegalArgumentException("pod and claim counts must not be negative");
        }
        if ((long) initPods + measurePods + initClaims + steadyPods > (long) nodes * devicesPerNode
                && !isSteadyState()) {
            throw new IllegalArgumentException(String.format(
                    "%d init + %d measured pods do not fit on %d nodes x %d devices", initPods, measurePods, nodes,
                    devicesPerNode));
        }
    }

    private static List<Workload> catalogue() {
        List<Workload> all = new ArrayList<>();
        all.add(scheduling("fast", 1, 10, 0, 10));
        all.add(scheduling("2000pods_100nodes", 100, 20, 1000, 1000));
        all.add(scheduling("2000pods_200nodes", 200, 10, 1000, 1000));
        all.add(scheduling("5000pods_500nodes", 500, 10, 2500, 2500));
        for (int nodes : new int[] {100, 200, 500}) {
            all.add(steadyState("empty_" + nodes + "nodes", nodes, 0));
            all.add(steadyState("half_" + nodes + "nodes", nodes, nodes * 10 / 2));
            all.add(steadyState("full_" + nodes + "nodes", nodes, nodes * 10 - 10));
        }
        return List.copyOf(all);
    }

    private static Workload scheduling(String name, int nodes, int devices, int init, int measure) {
        return new Workload(SCHEDULING, name, nodes, devices, init, measure, 0, 0, Duration.ZERO);
    }

    private static Workload steadyState(String name, int nodes, int initClaims) {
        return new Workload(STEADY_STATE, name, nodes, 10, 0, 0, initClaims, 10, Duration.ofSeconds(10));
    }

    /** The workload named {@code <TestCase>/<workload>} (or just the workload's name when unambiguous). */
    public static Optional<Workload> named(String fullName) {
        List<Workload> matches = ALL.stream()
                .filter(w -> w.fullName().equals(fullName) || w.name().equals(fullName)).toList();
        return matches.size() == 1 ? Optional.of(matches.get(0)) : Optional.empty();
    }

    public String fullName() {
        return testCase + "/" + name;
    }

    public boolean isSteadyState() {
        return testCase.equals(STEADY_STATE);
    }

    /**
     * The same workload at another scale, for quick runs: pods and claims shrink with the number of nodes as upstream's
     * smaller variants do.
     *
     * @param nodes the new number of nodes
     * @param measurePods the measured pods; for a steady-state workload, ignored
     */
    public Workload scaled(int nodes, Integer measurePods) {
        double factor = (double) nodes / this.nodes;
        int init = (int) Math.round(initPods * factor);
        int measure = measurePods != null ? measurePods : (int) Math.round(this.measurePods * factor);
        boolean full = initClaims > 0 && this.nodes * devicesPerNode - initClaims == steadyPods;
        int claims = full ? nodes * devicesPerNode - steadyPods : (int) Math.round(initClaims * factor);
        return new Workload(testCase, name + "@" + nodes + "nodes", nodes, devicesPerNode, init, measure, claims,
                steadyPods, steadyDuration);
    }

    /** The same workload with another steady-state duration. */
    public Workload withSteadyDuration(Duration duration) {
        return new Workload(testCase, name, nodes, devicesPerNode, initPods, measurePods, initClaims, steadyPods,
                duration);
    }

    public String describe() {
        String shape = nodes + " nodes x " + devicesPerNode + " devices";
        return isSteadyState()
                ? String.format("%s, %d allocated claims, %d pods in flight for %d s", shape, initClaims, steadyPods,
                        steadyDuration.toSeconds())
                : String.format("%s, %d init + %d measured pods", shape, initPods, measurePods);
    }
}
