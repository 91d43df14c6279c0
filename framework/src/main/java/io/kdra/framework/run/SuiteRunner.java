package io.kdra.framework.run;

import static org.junit.platform.engine.discovery.ClassNameFilter.includeClassNamePatterns;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import io.kdra.framework.FrameworkExtension;
import io.kdra.framework.SpecNames;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Disabled;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the spec classes of a package through the JUnit Platform, selected as ginkgo selects specs
 * ({@link SpecSelection}), optionally several at a time (specs tagged {@code Serial} still run alone), and reports
 * each spec's end to a {@link Listener}. {@code kdra e2e} is a thin command line around it; a driver author's own
 * suite can use it the same way.
 */
public final class SuiteRunner {

    /** What a run reports while it runs; called from the threads that run specs. */
    public interface Listener {

        /** A spec started; {@code total} is the number of specs the run selected. */
        default void specStarted(String name, int total) {
        }

        /** A spec ended: {@code finished} of {@code total} have. */
        default void specFinished(SpecResult result, int finished, int total) {
        }
    }

    private final String packageName;
    private final String classNamePattern;

    /**
     * @param packageName the package whose classes (and subpackages') are searched for specs
     * @param classNamePattern the spec classes' fully qualified names, as a regular expression
     */
    public SuiteRunner(String packageName, String classNamePattern) {
        this.packageName = packageName;
        this.classNamePattern = classNamePattern;
    }

    /** The specs the selection selects, in the order they would run, without running any (ginkgo's dry run). */
    public List<PlannedSpec> plan(SpecSelection selection) {
        TestPlan plan = LauncherFactory.create().discover(request(selection, Map.of()));
        return tests(plan).map(test -> identity(test.getSource().orElseThrow()).orElseThrow())
                .map(spec -> new PlannedSpec(spec.name(), spec.labels(), spec.specClass().getName(),
                        disabledReason(spec)))
                .toList();
    }

    /** Runs the selected specs, {@code parallel} at a time (1: one after the other). */
    public RunResult run(SpecSelection selection, int parallel, Listener listener) {
        if (parallel < 1) {
            throw new IllegalArgumentException("parallel must be at least 1, not " + parallel);
        }
        Map<String, String> configuration = new HashMap<>();
        if (parallel > 1) {
            configuration.put("junit.jupiter.execution.parallel.enabled", "true");
            configuration.put("junit.jupiter.execution.parallel.mode.default", "concurrent");
            configuration.put("junit.jupiter.execution.parallel.mode.classes.default", "concurrent");
            // a pool of plain threads: a spec blocks while it waits for the cluster, and Serial specs block on a lock
            configuration.put("junit.jupiter.execution.parallel.config.executor-service", "WORKER_THREAD_POOL");
            configuration.put("junit.jupiter.execution.parallel.config.strategy", "fixed");
            configuration.put("junit.jupiter.execution.parallel.config.fixed.parallelism", String.valueOf(parallel));
            configuration.put("junit.jupiter.execution.parallel.config.fixed.max-pool-size",
                    String.valueOf(parallel));
        }
        Collector collector = new Collector(listener);
        long start = System.nanoTime();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request(selection, configuration), collector);
        return new RunResult(collector.results(), Duration.ofNanos(System.nanoTime() - start));
    }

    private LauncherDiscoveryRequest request(SpecSelection selection, Map<String, String> configuration) {
        PostDiscoveryFilter selected = descriptor -> {
            if (!descriptor.isTest()) {
                return FilterResult.included("a container");
            }
            Optional<Spec> spec = descriptor.getSource().flatMap(SuiteRunner::identity);
            return FilterResult.includedIf(spec.isPresent() && selection.selects(spec.get().name(),
                    spec.get().labels()), () -> "selected", () -> "not selected by focus, skip or label filter");
        };
        return LauncherDiscoveryRequestBuilder.request()
                .selectors(selectPackage(packageName))
                .filters(includeClassNamePatterns(classNamePattern), selected)
                .configurationParameters(configuration)
                .build();
    }

    private static Stream<TestIdentifier> tests(TestPlan plan) {
        List<TestIdentifier> tests = new ArrayList<>();
        plan.getRoots().forEach(root -> collectTests(plan, root, tests));
        return tests.stream();
    }

    private static void collectTests(TestPlan plan, TestIdentifier node, List<TestIdentifier> tests) {
        if (node.isTest()) {
            tests.add(node);
        }
        plan.getChildren(node).forEach(child -> collectTests(plan, child, tests));
    }

    /** A spec method as the runner sees it: name and labels as ginkgo's, and where it is. */
    private record Spec(String name, List<String> labels, Class<?> specClass, Method method) {
    }

    private static Optional<Spec> identity(TestSource source) {
        if (!(source instanceof MethodSource method)) {
            return Optional.empty();
        }
        Class<?> specClass = method.getJavaClass();
        Method spec = method.getJavaMethod();
        return Optional.of(new Spec(SpecNames.fullName(specClass, spec), List.copyOf(SpecNames.labels(specClass,
                spec)), specClass, spec));
    }

    private static Optional<String> disabledReason(Spec spec) {
        for (AnnotatedElement element : List.of(spec.method(), spec.specClass())) {
            Disabled disabled = element.getAnnotation(Disabled.class);
            if (disabled != null) {
                return Optional.of(disabled.value().isEmpty() ? "disabled" : disabled.value());
            }
        }
        return Optional.empty();
    }

    /** Turns the platform's events into one {@link SpecResult} per spec. */
    private static final class Collector implements TestExecutionListener {

        private final Listener listener;
        private final List<SpecResult> results = new ArrayList<>();
        private final Map<String, Long> started = new ConcurrentHashMap<>();
        private final Map<String, String> failureReports = new ConcurrentHashMap<>();
        private final Set<String> ended = ConcurrentHashMap.newKeySet();
        private TestPlan plan;
        private int total;

        Collector(Listener listener) {
            this.listener = listener;
        }

        synchronized List<SpecResult> results() {
            return List.copyOf(results);
        }

        @Override
        public void testPlanExecutionStarted(TestPlan testPlan) {
            plan = testPlan;
            total = (int) tests(testPlan).count();
        }

        @Override
        public void executionStarted(TestIdentifier test) {
            if (test.isTest()) {
                started.put(test.getUniqueId(), System.nanoTime());
                identity(test).ifPresent(spec -> listener.specStarted(spec.name(), total));
            }
        }

        @Override
        public void reportingEntryPublished(TestIdentifier test, ReportEntry entry) {
            String report = entry.getKeyValuePairs().get(FrameworkExtension.FAILURE_REPORT_KEY);
            if (report != null) {
                failureReports.put(test.getUniqueId(), report);
            }
        }

        @Override
        public void executionSkipped(TestIdentifier test, String reason) {
            Stream.concat(Stream.of(test), plan.getDescendants(test).stream()).filter(TestIdentifier::isTest)
                    .forEach(spec -> end(spec, SpecResult.Status.SKIPPED, reason, ""));
        }

        @Override
        public void executionFinished(TestIdentifier test, TestExecutionResult result) {
            Throwable failure = result.getThrowable().orElse(null);
            String message = failure == null ? "" : String.valueOf(failure.getMessage());
            if (test.isTest()) {
                switch (result.getStatus()) {
                    case SUCCESSFUL -> end(test, SpecResult.Status.PASSED, "", "");
                    case ABORTED -> end(test, SpecResult.Status.SKIPPED, message, "");
                    case FAILED -> end(test, SpecResult.Status.FAILED, message, details(test, failure));
                }
            } else if (result.getStatus() == TestExecutionResult.Status.FAILED) {
                // a container failed before its specs could run (a class that cannot be set up): each fails with it
                plan.getDescendants(test).stream().filter(TestIdentifier::isTest)
                        .forEach(spec -> end(spec, SpecResult.Status.FAILED, message, details(test, failure)));
            }
        }

        private String details(TestIdentifier test, Throwable failure) {
            String report = failureReports.remove(test.getUniqueId());
            return stackTrace(failure) + (report == null ? "" : "\n" + report);
        }

        private void end(TestIdentifier test, SpecResult.Status status, String message, String details) {
            if (!ended.add(test.getUniqueId())) {
                return;
            }
            Long start = started.remove(test.getUniqueId());
            Duration duration = start == null ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - start);
            Spec spec = identity(test).orElse(new Spec(test.getDisplayName(), List.of(), Object.class, null));
            SpecResult result = new SpecResult(spec.name(), spec.labels(), spec.specClass().getName(), status,
                    duration, message, details);
            int finished;
            synchronized (this) {
                results.add(result);
                finished = results.size();
            }
            listener.specFinished(result, finished, total);
        }

        private static Optional<Spec> identity(TestIdentifier test) {
            return test.getSource().flatMap(SuiteRunner::identity);
        }

        /** The trace without the frames of the test engine and of reflection, which say nothing about the spec. */
        private static String stackTrace(Throwable failure) {
            if (failure == null) {
                return "";
            }
            StringWriter text = new StringWriter();
            failure.printStackTrace(new PrintWriter(text));
            StringBuilder trimmed = new StringBuilder();
            boolean skipping = false;
            for (String line : text.toString().split("\n")) {
                boolean machinery = line.contains("at org.junit.") || line.contains("at java.base/jdk.internal.")
                        || line.contains("at java.base/java.lang.reflect.") || line.contains("at java.base/java.util.");
                if (machinery && !skipping) {
                    trimmed.append("\t...\n");
                }
                skipping = machinery;
                if (!machinery) {
                    trimmed.append(line).append('\n');
                }
            }
            return trimmed.toString();
        }
    }
}
