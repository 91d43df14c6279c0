package io.kdra.cli;

import io.kdra.e2e.UpstreamSuite;
import io.kdra.framework.ClusterRequirements;
import io.kdra.framework.FrameworkExtension;
import io.kdra.framework.proxy.ProxyDeployment;
import io.kdra.framework.run.LabelFilter;
import io.kdra.framework.run.PlannedSpec;
import io.kdra.framework.run.RunReports;
import io.kdra.framework.run.RunResult;
import io.kdra.framework.run.SpecResult;
import io.kdra.framework.run.SpecSelection;
import io.kdra.framework.run.SuiteRunner;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kdra e2e}: the upstream DRA specs, on the embedded cluster or the cluster of a kubeconfig, selected as
 * ginkgo selects them. The runner is the framework's {@link SuiteRunner}; this command parses, shows progress and
 * prints the failures and the summary.
 */
@Command(name = "e2e", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run the upstream DRA e2e specs (test/e2e/dra), by default on one embedded cluster started for"
                + " the run, with every feature gate and the newest kubelet version the selected specs need.",
                "Selection works as ginkgo's: --focus and --skip are regular expressions on the full spec name,"
                        + " --label-filter is ginkgo's label expression.",
                "Exit code: 0 when no spec failed, 1 when one did, 2 for bad options."})
final class E2eCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--kubeconfig", paramLabel = "PATH",
            description = "Run on the cluster of this kubeconfig instead of an embedded one; each driver is deployed"
                    + " with a proxy pod per node (" + ProxyDeployment.IMAGE + ") whose sockets reach this JVM"
                    + " through exec and port-forward, as upstream's e2e.test does.")
    private Path kubeconfig;

    @Option(names = "--focus", paramLabel = "REGEX",
            description = "Run only specs whose full name matches (repeatable: any of them).")
    private List<String> focus = new ArrayList<>();

    @Option(names = "--skip", paramLabel = "REGEX",
            description = "Do not run specs whose full name matches (repeatable).")
    private List<String> skip = new ArrayList<>();

    @Option(names = "--label-filter", paramLabel = "EXPR",
            description = "Ginkgo's label filter, e.g. 'DRA && !Slow && Feature: isSubsetOf {DynamicResourceAllocation}'.")
    private String labelFilter = "";

    @Option(names = "--parallel", paramLabel = "N", defaultValue = "1",
            description = "Run N specs at a time (default: ${DEFAULT-VALUE}); [Serial] specs still run alone.")
    private int parallel;

    @Option(names = "--dry-run", description = "List the selected specs (and why a disabled one would be skipped)"
            + " without running them.")
    private boolean dryRun;

    @Option(names = "--report-dir", paramLabel = "DIR",
            description = "Write junit.xml and report.html there.")
    private Path reportDirectory;

    @Option(names = "--nodes", paramLabel = "N",
            description = "Nodes of each embedded cluster (default: 3, as the kind cluster of upstream's jobs).")
    private Integer nodes;

    @Option(names = "--kubernetes-version", paramLabel = "1.X",
            description = "The embedded clusters' Kubernetes version (default: 1.34); specs can raise it.")
    private String kubernetesVersion;

    @Option(names = "--feature-gates", paramLabel = "A=true,B=false",
            description = "Feature gates of the embedded clusters, on top of what each spec needs.")
    private String featureGates;

    @Option(names = "--fail-on-empty", description = "Fail when the selection selects no spec (ginkgo's flag).")
    private boolean failOnEmpty;

    @Mixin
    private Verbosity verbosity;

    @Override
    public Integer call() throws IOException {
        SpecSelection selection = new SpecSelection(patterns("--focus", focus), patterns("--skip", skip),
                parseLabelFilter());
        if (parallel < 1) {
            throw new ParameterException(spec.commandLine(), "--parallel must be at least 1, not " + parallel);
        }
        configureBackend();
        PrintWriter out = spec.commandLine().getOut();
        SuiteRunner runner = UpstreamSuite.runner();
        List<PlannedSpec> planned = runner.plan(selection);
        if (dryRun) {
            for (PlannedSpec spec : planned) {
                out.println(spec.name() + spec.disabledReason().map(reason -> "    (skipped: " + reason + ")")
                        .orElse(""));
            }
            out.println(planned.size() + " specs selected");
            out.flush();
            return emptyExitCode(planned.size());
        }
        if (planned.isEmpty()) {
            out.println("no spec selected: check --focus, --skip and --label-filter (--dry-run lists the selection)");
            out.println("0 passed, 0 failed, 0 skipped");
            out.flush();
            return emptyExitCode(0);
        }
        out.println("running " + planned.size() + " specs on " + (kubeconfig != null ? "the cluster of " + kubeconfig
                : "embedded clusters") + (parallel > 1 ? ", " + parallel + " at a time" : ""));
        out.flush();
        Progress progress = new Progress(out, System.console() != null);
        RunResult result = runner.run(selection, parallel, progress);
        progress.clearLine();
        printFailures(out, result);
        if (reportDirectory != null) {
            RunReports.write(reportDirectory, UpstreamSuite.NAME, result);
            out.println("reports: " + reportDirectory.resolve(RunReports.JUNIT_FILE) + ", "
                    + reportDirectory.resolve(RunReports.HTML_FILE));
        }
        out.println("ran in " + seconds(result.wallTime()));
        out.println(result.summary());
        out.flush();
        return result.succeeded() ? 0 : 1;
    }

    private int emptyExitCode(int selected) {
        return selected == 0 && failOnEmpty ? 1 : 0;
    }

    private List<Pattern> patterns(String option, List<String> expressions) {
        List<Pattern> patterns = new ArrayList<>();
        for (String expression : expressions) {
            try {
                patterns.add(Pattern.compile(expression));
            } catch (PatternSyntaxException e) {
                throw new ParameterException(spec.commandLine(), option + " '" + expression
                        + "' is not a regular expression: " + e.getDescription());
            }
        }
        return patterns;
    }

    private LabelFilter parseLabelFilter() {
        try {
            return LabelFilter.parse(labelFilter);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--label-filter: " + e.getMessage());
        }
    }

    /** The framework reads its backend settings from system properties, as the Maven build passes them. */
    private void configureBackend() {
        if (kubeconfig != null) {
            if (!Files.isReadable(kubeconfig)) {
                throw new ParameterException(spec.commandLine(), "--kubeconfig " + kubeconfig + " is not a readable file");
            }
            System.setProperty(FrameworkExtension.KUBECONFIG_PROPERTY, kubeconfig.toAbsolutePath().toString());
        }
        if (nodes != null) {
            if (nodes < 1) {
                throw new ParameterException(spec.commandLine(), "--nodes must be at least 1, not " + nodes);
            }
            System.setProperty(ClusterRequirements.NODES_PROPERTY, String.valueOf(nodes));
        }
        if (kubernetesVersion != null) {
            System.setProperty(ClusterRequirements.KUBERNETES_VERSION_PROPERTY, kubernetesVersion);
        }
        if (featureGates != null) {
            System.setProperty(ClusterRequirements.FEATURE_GATES_PROPERTY, featureGates);
        }
        try {
            ClusterRequirements.forTags(Set.of());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private static void printFailures(PrintWriter out, RunResult result) {
        List<SpecResult> failed = result.specs().stream()
                .filter(spec -> spec.status() == SpecResult.Status.FAILED).toList();
        if (failed.isEmpty()) {
            return;
        }
        out.println();
        out.println("Failures:");
        for (SpecResult spec : failed) {
            out.println();
            out.println("FAILED " + spec.name());
            out.println(spec.message());
            out.print(spec.details());
        }
        out.println();
        out.println("To look further: rerun one spec with --focus '<part of its name>' -v for the components' logs.");
    }

    private static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.1f s", duration.toNanos() / 1e9);
    }

    /**
     * One line per finished spec; on a terminal also a live line with the counts and the spec that started last.
     */
    private static final class Progress implements SuiteRunner.Listener {

        private final PrintWriter out;
        private final boolean live;
        private int passed;
        private int failed;
        private int skipped;
        private String running = "";
        private int total;
        private boolean lineShown;

        Progress(PrintWriter out, boolean live) {
            this.out = out;
            this.live = live;
        }

        @Override
        public synchronized void specStarted(String name, int total) {
            this.total = total;
            running = name;
            showLine();
        }

        @Override
        public synchronized void specFinished(SpecResult result, int finished, int total) {
            this.total = total;
            switch (result.status()) {
                case PASSED -> passed++;
                case FAILED -> failed++;
                case SKIPPED -> skipped++;
            }
            clearLine();
            String width = "%" + String.valueOf(total).length() + "d";
            out.println(String.format(Locale.ROOT, "[" + width + "/%d] %-7s %6s  %s%s", finished, total,
                    result.status().name().toLowerCase(Locale.ROOT), result.status() == SpecResult.Status.SKIPPED
                            ? "" : seconds(result.duration()), result.name(),
                    result.status() == SpecResult.Status.PASSED ? "" : ": " + firstLine(result.message())));
            showLine();
        }

        synchronized void clearLine() {
            if (lineShown) {
                out.print("\r\033[K");
                lineShown = false;
            }
            out.flush();
        }

        private void showLine() {
            if (!live) {
                out.flush();
                return;
            }
            clearLine();
            String line = passed + " passed, " + failed + " failed, " + skipped + " skipped of " + total
                    + " · running: " + running;
            out.print(line.length() > 160 ? line.substring(0, 157) + "..." : line);
            lineShown = true;
            out.flush();
        }

        private static String firstLine(String message) {
            int newline = message.indexOf('\n');
            return newline < 0 ? message : message.substring(0, newline) + " ...";
        }
    }
}
