package io.kdra.cli;

import io.kdra.bench.scheduling.SchedulingBenchmark;
import io.kdra.bench.scheduling.StartBenchmark;
import io.kdra.bench.scheduling.Workload;
import io.kdra.cluster.RuntimeKind;
import io.kdra.cluster.Timing;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code kdra bench}: scheduler_perf-shaped DRA workloads and the start time, on the embedded cluster. The workloads
 * live in the bench module ({@code io.kdra.bench.scheduling}); this command only parses, shows progress and prints.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmarks of the embedded DRA cluster: scheduler_perf's DRA workloads and the start time.",
        subcommands = {BenchCommand.Scheduling.class, BenchCommand.Start.class})
final class BenchCommand extends CommandGroup {

    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    @Command(name = "scheduling", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Run a scheduler_perf DRA workload on the whole embedded cluster: the resourceclaim"
                    + " controller creates the claims, the scheduler allocates and binds, each node's kubelet prepares"
                    + " the claims through a DRA driver over gRPC and runs the pods.",
                    "Reports SchedulingThroughput (1-second samples: average and percentiles, as scheduler_perf) for"
                            + " scheduled and Running pods, CPU per pod and per thread group, heap, load average."})
    static final class Scheduling implements Callable<Integer> {

        @Spec
        private CommandSpec spec;

        @Option(names = "--workload", paramLabel = "TESTCASE/NAME",
                defaultValue = "SchedulingWithResourceClaimTemplate/5000pods_500nodes",
                description = "The workload, by scheduler_perf's name (default: ${DEFAULT-VALUE}); see --list.")
        private String workloadName;

        @Option(names = "--list", description = "List the workloads and exit.")
        private boolean list;

        @Option(names = "--runtime", paramLabel = "noop|process", defaultValue = "noop",
                description = "The nodes' container runtime (default: ${DEFAULT-VALUE}).")
        private String runtime;

        @Option(names = "--timing", paramLabel = "fast|real-timing", defaultValue = "real-timing",
                description = "The cluster's delays (default: ${DEFAULT-VALUE}). The fast profile renews every node's Lease each second: 500 writes/s on 500 nodes.")
        private String timing;

        @Option(names = "--nodes", paramLabel = "N",
                description = "Run the workload on N nodes instead, pods and claims scaled with it (quick runs).")
        private Integer nodes;

        @Option(names = "--pods", paramLabel = "N", description = "Measured pods instead of the workload's.")
        private Integer pods;

        @Option(names = "--duration", paramLabel = "SECONDS",
                description = "Steady-state workloads: how long pods are kept in flight (default: the workload's).")
        private Integer duration;

        @Option(names = "--creators", paramLabel = "N", defaultValue = "8",
                description = "Threads creating pods (default: ${DEFAULT-VALUE}).")
        private int creators;

        @Option(names = "--output", paramLabel = "FILE", description = "Also write the result as JSON to FILE.")
        private Path output;

        @Option(names = "--quiet", description = "No progress line.")
        private boolean quiet;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            if (list) {
                for (Workload workload : Workload.ALL) {
                    out.printf("%-58s %s%n", workload.fullName(), workload.describe());
                }
                return 0;
            }
            SchedulingBenchmark.Options options;
            try {
                Workload workload = Workload.named(workloadName).orElseThrow(() -> new IllegalArgumentException(
                        "no workload " + workloadName + "; kdra bench scheduling --list shows them"));
                if (nodes != null || pods != null) {
                    workload = workload.scaled(nodes != null ? nodes : workload.nodes(), pods);
                }
                if (duration != null) {
                    workload = workload.withSteadyDuration(Duration.ofSeconds(duration));
                }
                options = new SchedulingBenchmark.Options(workload, RuntimeKind.named(runtime), Timing.named(timing),
                        creators,
                        progress -> {
                            if (!quiet) {
                                System.err.print("\r" + progress.line());
                                System.err.flush();
                            }
                        });
                out.println("kdra bench scheduling: " + workload.fullName() + " (" + workload.describe()
                        + "), runtime " + runtime + ", timing " + timing);
                out.flush();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage(), e);
            }
            SchedulingBenchmark.Result result = SchedulingBenchmark.run(options);
            if (!quiet) {
                System.err.println();
            }
            print(out, result);
            if (output != null) {
                Files.writeString(output, JSON.writeValueAsString(result));
                out.println("result written to " + output.toAbsolutePath());
            }
            return 0;
        }

        private static void print(PrintWriter out, SchedulingBenchmark.Result result) {
            var machine = result.machine();
            var measured = result.measured();
            out.printf("machine: %d cores, load average %.2f at start, %.2f at end; Java %s, max heap %d MB%n",
                    machine.cores(), machine.loadAverageAtStart(), machine.loadAverageAtEnd(), machine.java(),
                    machine.maxHeapMb());
            out.printf("cluster start %.2f s, drivers ready %.2f s, init phase %.2f s%n", result.clusterStartSeconds(),
                    result.driversReadySeconds(), result.initSeconds());
            out.printf("measured: %d pods scheduled in %.2f s: %.0f pods/s%n", measured.pods(),
                    measured.scheduledSeconds(), measured.scheduledPerSecond());
            if (measured.runningSeconds() != null) {
                out.printf("          %d pods Running in %.2f s: %.0f pods/s%n", measured.pods(),
                        measured.runningSeconds(), measured.runningPerSecond());
            }
            printThroughput(out, "SchedulingThroughput", measured.schedulingThroughput());
            if (measured.runningThroughput() != null) {
                printThroughput(out, "RunningThroughput", measured.runningThroughput());
            }
            out.printf("CPU: %.1f s for the process, %.2f ms per pod; by thread group (s): %s%n",
                    result.cpu().processSeconds(), result.cpu().millisPerPod(), result.cpu().threadGroups());
            out.printf("heap: peak %d MB in use, %d MB after a full GC at the end%n",
                    result.memory().peakHeapUsedMb(), result.memory().heapAfterGcMb());
        }

        private static void printThroughput(PrintWriter out, String name,
                io.kdra.bench.scheduling.Throughput throughput) {
            out.printf("%s (pods/s, %d samples): average %.1f, perc50 %.1f, perc90 %.1f, perc95 %.1f, perc99 %.1f%n",
                    name, throughput.samples(), throughput.average(), throughput.perc50(), throughput.perc90(),
                    throughput.perc95(), throughput.perc99());
        }
    }

    @Command(name = "start", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Time the embedded cluster's start until every node is Ready: the first start in this JVM"
                    + " (cold), then warm starts.")
    static final class Start implements Callable<Integer> {

        @Spec
        private CommandSpec spec;

        @Option(names = "--nodes", paramLabel = "N", defaultValue = "4",
                description = "Nodes (default: ${DEFAULT-VALUE}).")
        private int nodes;

        @Option(names = "--runs", paramLabel = "N", defaultValue = "5",
                description = "Starts, one after the other; the first is the cold one (default: ${DEFAULT-VALUE}).")
        private int runs;

        @Option(names = "--with-drivers", description = "Also start a DRA driver on every node and wait until each"
                + " kubelet registered it.")
        private boolean withDrivers;

        @Option(names = "--runtime", paramLabel = "noop|process", defaultValue = "noop",
                description = "The nodes' container runtime (default: ${DEFAULT-VALUE}).")
        private String runtime;

        @Option(names = "--timing", paramLabel = "fast|real-timing", defaultValue = "fast",
                description = "The cluster's delays (default: ${DEFAULT-VALUE}).")
        private String timing;

        @Option(names = "--output", paramLabel = "FILE", description = "Also write the result as JSON to FILE.")
        private Path output;

        @Override
        public Integer call() throws Exception {
            if (nodes < 1 || runs < 1) {
                throw new ParameterException(spec.commandLine(), "--nodes and --runs must be at least 1");
            }
            RuntimeKind kind;
            Timing delays;
            try {
                kind = RuntimeKind.named(runtime);
                delays = Timing.named(timing);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage(), e);
            }
            PrintWriter out = spec.commandLine().getOut();
            int[] run = {0};
            StartBenchmark.Result result = StartBenchmark.run(nodes, runs, withDrivers, kind, delays, seconds -> {
                out.printf("start %d (%s): %d nodes Ready%s in %.3f s%n", ++run[0], run[0] == 1 ? "cold" : "warm",
                        nodes, withDrivers ? " with drivers registered" : "", seconds);
                out.flush();
            });
            out.printf("cold %.3f s (JVM start to Ready %.2f s), best warm %.3f s; load average %.2f at start, %.2f"
                    + " at end%n", result.cold(), result.jvmUptimeAtFirstReadySeconds(), result.bestWarm(),
                    result.loadAverageAtStart(), result.loadAverageAtEnd());
            if (output != null) {
                Files.writeString(output, JSON.writeValueAsString(result));
                out.println("result written to " + output.toAbsolutePath());
            }
            return 0;
        }
    }
}
