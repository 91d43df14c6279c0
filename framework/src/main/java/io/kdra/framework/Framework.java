package io.kdra.framework;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-spec state of upstream's e2e {@code framework.Framework}: a fresh namespace {@code <base name>-xxxxx}
 * (privileged), the admin client, the upstream timeouts, and a LIFO stack of cleanups. A spec class creates it as its
 * first field; {@link Nodes}, {@link Driver} and {@link Builder} created as later fields register their before-each
 * setup with it, which {@link FrameworkExtension} runs in declaration order before each spec:
 *
 * <pre>{@code
 * @DraSpec
 * @DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation]")
 * class KubeletSpecs {
 *     final Framework f = Framework.create("dra");
 *     final Nodes nodes = Nodes.create(f, 1, 1);
 *     final Driver driver = Driver.create(f, nodes, Resources.networkResources(10, false));
 *     final Builder b = Builder.create(f, driver);
 * }
 * }</pre>
 *
 * After the spec, cleanups run last-registered first; a cleanup that fails does not stop the others. When the spec
 * failed, a {@link FailureReport} (last step, the namespace's pods, claims, templates and events, the registered
 * diagnostics) is collected and logged first.
 *
 * <p>A run that is interrupted (Ctrl-C, SIGTERM: the JVM shuts down) still removes what its running specs created on
 * the cluster ({@link InterruptedRun}): their pending cleanups run, except those that only wait ({@link #cleanupWait}).
 * That matters on a cluster that outlives the run (a kubeconfig's): proxy pods and their sockets, namespaces,
 * cluster-wide RBAC and admission policies.
 */
public final class Framework {

    private static final Logger LOG = LoggerFactory.getLogger(Framework.class);
    /** The label kube-apiserver's Pod Security admission reads; the DRA specs run privileged pods. */
    public static final String POD_SECURITY_ENFORCE = "pod-security.kubernetes.io/enforce";

    /** @param onlyWaits whether the step only waits for the cluster to settle, which an interrupted run skips */
    private record NamedStep(String what, Step step, boolean onlyWaits) {
    }

    private record Diagnostic(Supplier<String> title, Supplier<String> content) {
    }

    private final String baseName;
    private final List<NamedStep> beforeEach = new ArrayList<>();
    private final Deque<NamedStep> cleanups = new ArrayDeque<>();
    /** Held while a cleanup that removes something runs, see {@link #runPendingCleanups}. */
    private final Object cleaningInOrder = new Object();
    private final List<String> errors = new ArrayList<>();
    private final List<Diagnostic> diagnostics = new ArrayList<>();
    private volatile String lastStep;
    private FailureReport failureReport;
    private ClusterBackend backend;
    private String namespace;
    private String specName;

    private Framework(String baseName) {
        this.baseName = Objects.requireNonNull(baseName, "baseName");
    }

    /** A framework whose namespaces are named {@code <baseName>-xxxxx}; upstream's {@code NewDefaultFramework}. */
    public static Framework create(String baseName) {
        return new Framework(baseName);
    }

    /**
     * Registers setup that runs before each spec, after the namespace exists, in registration order (upstream's
     * {@code ginkgo.BeforeEach}). Only possible while the spec instance is being constructed.
     */
    public void beforeEach(String what, Step step) {
        if (backend != null) {
            throw new IllegalStateException("before-each setup (" + what + ") must be registered while the spec is "
                    + "constructed, e.g. by a field; inside a spec use the ...Now/instance forms");
        }
        beforeEach.add(new NamedStep(what, step, false));
    }

    /** Registers a cleanup; cleanups run after the spec, the last registered first (upstream's DeferCleanup). */
    public void cleanup(String what, Step step) {
        synchronized (cleanups) {
            cleanups.push(new NamedStep(what, step, false));
        }
    }

    /**
     * Registers a cleanup that only waits for the cluster to settle and removes nothing (upstream's wait until a
     * driver's ResourceSlices are gone), so that an interrupted run skips it.
     */
    public void cleanupWait(String what, Step step) {
        synchronized (cleanups) {
            cleanups.push(new NamedStep(what, step, true));
        }
    }

    /**
     * Records a failure without stopping the spec (upstream's {@code tCtx.Errorf}); the spec fails when it ends. For
     * checks that run on other threads, such as the claim watcher.
     */
    public void errorf(String format, Object... args) {
        String message = String.format(format, args);
        LOG.error("{}: {}", specName, message);
        synchronized (errors) {
            errors.add(message);
        }
    }

    /** Logs a step of the spec, as {@code ginkgo.By}; a failure report names the last one. */
    public void by(String step) {
        lastStep = step;
        LOG.info("STEP: {}", step);
    }

    /**
     * Adds a section to the report of a failed spec, for state only the caller knows (a driver's gRPC calls); the
     * content is computed when the spec has failed, before the cleanups run.
     */
    public void diagnostic(Supplier<String> title, Supplier<String> content) {
        synchronized (diagnostics) {
            diagnostics.add(new Diagnostic(title, content));
        }
    }

    /** What was found when the spec failed, before the cleanups ran; empty while it has not failed. */
    public Optional<FailureReport> failureReport() {
        return Optional.ofNullable(failureReport);
    }

    /** The spec's namespace. */
    public String namespace() {
        return started().namespace;
    }

    /** The namespace name, which upstream also uses to make cluster-scoped names unique. */
    public String uniqueName() {
        return namespace();
    }

    /** The cluster-admin client. */
    public KubernetesClient client() {
        return started().backend.adminClient();
    }

    public ClusterBackend backend() {
        return started().backend;
    }

    /** The bounds of the spec's waits (upstream's, see {@link ClusterBackend#timeouts()}). */
    public Timeouts timeouts() {
        return started().backend.timeouts();
    }

    /** The spec's full name, as ginkgo prints it. */
    public String specName() {
        return specName;
    }

    private Framework started() {
        if (backend == null) {
            throw new IllegalStateException("the framework is not set up yet: spec classes need @DraSpec, and "
                    + "field initializers must not use the cluster");
        }
        return this;
    }

    /** Creates the namespace and runs the before-each setup; called by {@link FrameworkExtension}. */
    void setUp(ClusterBackend backend, String specName) throws Exception {
        this.backend = backend;
        this.specName = specName;
        LOG.info("spec: {}", specName);
        InterruptedRun.specStarted(this);
        KubernetesClient client = backend.adminClient();
        Namespace created = client.namespaces().resource(new NamespaceBuilder()
                .withNewMetadata().withGenerateName(baseName + "-")
                .withLabels(Map.of("e2e-framework", baseName, POD_SECURITY_ENFORCE, "privileged"))
                .endMetadata().build()).create();
        namespace = created.getMetadata().getName();
        cleanup("delete namespace " + namespace, () -> client.namespaces().withName(namespace).delete());
        for (NamedStep step : beforeEach) {
            LOG.debug("before each: {}", step.what());
            step.step().run();
        }
    }

    /**
     * Dumps the namespace if the spec failed, runs the cleanups, and fails with the recorded errors and the cleanups'
     * failures; called by {@link FrameworkExtension}.
     */
    void tearDown(Throwable specFailure) {
        try {
            runCleanups(specFailure);
        } finally {
            InterruptedRun.specEnded(this);
        }
    }

    private void runCleanups(Throwable specFailure) {
        if (specFailure != null && namespace != null) {
            failureReport = collectFailureReport();
            LOG.warn("{} failed\n{}", specName, failureReport.render());
        }
        List<Throwable> failures = runPendingCleanups();
        List<String> recorded;
        synchronized (errors) {
            recorded = List.copyOf(errors);
        }
        if (recorded.isEmpty() && failures.isEmpty()) {
            return;
        }
        AssertionError error = new AssertionError(String.join("\n", recorded.isEmpty()
                ? List.of(failures.size() + " cleanup(s) failed") : recorded));
        failures.forEach(error::addSuppressed);
        throw error;
    }

    /**
     * Runs the pending cleanups, last registered first, and returns their failures. When a run is interrupted, the
     * spec's own thread and the shutdown hook may both be here: each cleanup that removes something runs alone, so they
     * still run one after the other in order; those that only wait run outside that order, and not at all once the
     * run was interrupted.
     */
    List<Throwable> runPendingCleanups() {
        List<Throwable> failures = new ArrayList<>();
        while (true) {
            NamedStep cleanup;
            synchronized (cleaningInOrder) {
                synchronized (cleanups) {
                    cleanup = cleanups.poll();
                }
                if (cleanup == null) {
                    return failures;
                }
                if (!cleanup.onlyWaits()) {
                    runCleanup(cleanup, failures);
                    continue;
                }
            }
            if (InterruptedRun.isInterrupted()) {
                LOG.debug("{}: interrupted, not waiting: {}", specName, cleanup.what());
            } else {
                runCleanup(cleanup, failures);
            }
        }
    }

    private void runCleanup(NamedStep cleanup, List<Throwable> failures) {
        try {
            LOG.debug("cleanup: {}", cleanup.what());
            cleanup.step().run();
        } catch (Exception | AssertionError e) {
            LOG.error("{}: cleanup \"{}\" failed", specName, cleanup.what(), e);
            failures.add(new AssertionError("cleanup \"" + cleanup.what() + "\" failed: " + e.getMessage(), e));
        }
    }

    private FailureReport collectFailureReport() {
        KubernetesClient client = backend.adminClient();
        StringBuilder objects = new StringBuilder();
        StringBuilder events = new StringBuilder();
        try {
            for (Pod pod : client.pods().inNamespace(namespace).list().getItems()) {
                objects.append("Pod ").append(pod.getMetadata().getName()).append(" on ")
                        .append(pod.getSpec().getNodeName()).append(": ")
                        .append(Serialization.asJson(pod.getStatus())).append('\n');
            }
            for (ResourceClaim claim : client.resources(ResourceClaim.class).inNamespace(namespace).list()
                    .getItems()) {
                objects.append("ResourceClaim ").append(claim.getMetadata().getName()).append(": finalizers ")
                        .append(claim.getMetadata().getFinalizers()).append(", spec ")
                        .append(Serialization.asJson(claim.getSpec())).append(", status ")
                        .append(Serialization.asJson(claim.getStatus())).append('\n');
            }
            for (ResourceClaimTemplate template : client.resources(ResourceClaimTemplate.class)
                    .inNamespace(namespace).list().getItems()) {
                objects.append("ResourceClaimTemplate ").append(template.getMetadata().getName()).append('\n');
            }
            client.v1().events().inNamespace(namespace).list().getItems().stream()
                    .sorted(Comparator.comparing(Framework::eventTime))
                    .forEach(event -> events.append(eventTime(event)).append(' ')
                            .append(event.getType()).append(' ').append(event.getReason()).append(' ')
                            .append(event.getInvolvedObject().getKind()).append('/')
                            .append(event.getInvolvedObject().getName()).append(": ").append(event.getMessage())
                            .append('\n'));
        } catch (KubernetesClientException e) {
            objects.append("(incomplete: ").append(e.getMessage()).append(")\n");
        }
        Map<String, String> sections = new LinkedHashMap<>();
        sections.put("objects in namespace " + namespace, objects.toString());
        sections.put("events in namespace " + namespace, events.toString());
        List<Diagnostic> registered;
        synchronized (diagnostics) {
            registered = List.copyOf(diagnostics);
        }
        for (Diagnostic diagnostic : registered) {
            String content;
            try {
                content = diagnostic.content().get();
            } catch (RuntimeException e) {
                content = "(not available: " + e + ")\n";
            }
            sections.put(diagnostic.title().get(), content);
        }
        return new FailureReport(lastStep, sections);
    }

    private static String eventTime(Event event) {
        String time = event.getLastTimestamp() != null ? event.getLastTimestamp() : event.getEventTime() != null
                ? event.getEventTime().getTime() : event.getMetadata().getCreationTimestamp();
        return time == null ? "" : time;
    }
}
