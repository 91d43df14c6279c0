package io.kdra.framework;

import java.lang.reflect.Field;
import io.kdra.kube.FeatureGates;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;
import org.opentest4j.TestAbortedException;

/**
 * Runs a spec class's {@link Framework}: before each spec it picks the cluster backend, creates the namespace and runs
 * the registered before-each setup in order; after it, it runs the cleanups. The backend is the embedded cluster
 * (one for all specs of the run, with the requirements of every spec in it, see {@link #requirements}; started on
 * first use), or, with the configuration parameter or system property {@value #KUBECONFIG_PROPERTY}, the cluster of
 * that kubeconfig.
 */
public final class FrameworkExtension implements BeforeEachCallback, AfterEachCallback {

    /** System property: run against the cluster of this kubeconfig instead of an embedded cluster. */
    public static final String KUBECONFIG_PROPERTY = "kdra.e2e.kubeconfig";
    /** The report entry a failed spec publishes: its {@link FailureReport}, rendered. */
    public static final String FAILURE_REPORT_KEY = "kdra.failureReport";
    private static final String SERIAL = "Serial";
    /**
     * Specs tagged {@code Serial} run alone on their cluster when specs run in parallel, as ginkgo runs
     * {@code [Serial]} specs alone on its one cluster: they take the write lock of their cluster, every other spec a
     * read lock. A spec on a cluster of its own (its own gates or the real slice-wiping delay) disturbs no other
     * cluster, so it does not wait for them. Fair, so that a waiting Serial spec is not starved.
     */
    private static final Map<Object, ReadWriteLock> SPECS_BY_CLUSTER = new ConcurrentHashMap<>();
    private record PlanRequirements(Set<String> labels, Optional<ClusterRequirements> requirements) {
    }

    private static PlanRequirements lastPlan;
    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(FrameworkExtension.class);

    /** A backend, or why it could not start, so that a broken configuration fails every spec at once. */
    private record StartedBackend(ClusterBackend backend, RuntimeException failure) implements AutoCloseable {
        @Override
        public void close() {
            if (backend != null) {
                backend.close();
            }
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        Object cluster = backendKey(context);
        ReadWriteLock specs = SPECS_BY_CLUSTER.computeIfAbsent(cluster, key -> new ReentrantReadWriteLock(true));
        Lock lock = context.getTags().contains(SERIAL) ? specs.writeLock() : specs.readLock();
        lock.lock();
        context.getStore(STORE).put(Lock.class, lock);
        Framework framework = framework(context);
        String name = SpecNames.fullName(context.getRequiredTestClass(), context.getRequiredTestMethod());
        framework.setUp(backend(context, cluster), name);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Framework framework = framework(context);
        try {
            framework.tearDown(context.getExecutionException()
                    .filter(failure -> !(failure instanceof TestAbortedException)).orElse(null));
        } finally {
            framework.failureReport().ifPresent(report -> context.publishReportEntry(FAILURE_REPORT_KEY,
                    report.render()));
            Lock lock = context.getStore(STORE).remove(Lock.class, Lock.class);
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    /** The kubeconfig of the run, or else the requirements of the embedded cluster the spec runs on. */
    private static Object backendKey(ExtensionContext context) {
        // a configuration parameter of the run, or else the system property of the same name
        String kubeconfig = context.getConfigurationParameter(KUBECONFIG_PROPERTY).orElse(null);
        return kubeconfig != null ? Path.of(kubeconfig) : requirements(context);
    }

    private static ClusterBackend backend(ExtensionContext context, Object key) {
        StartedBackend started = context.getRoot().getStore(STORE).computeIfAbsent(key, k -> {
            try {
                return new StartedBackend(k instanceof Path path ? KubeconfigBackend.connect(path)
                        : EmbeddedBackend.start((ClusterRequirements) k), null);
            } catch (RuntimeException e) {
                return new StartedBackend(null, e);
            }
        }, StartedBackend.class);
        if (started.failure() != null) {
            throw new IllegalStateException("cluster for " + key + " could not start: " + started.failure()
                    .getMessage(), started.failure());
        }
        return started.backend();
    }

    /**
     * The spec's requirements: its tags', the real slice-wiping delay when it is annotated so, and, for a spec that
     * needs gates off or upgrades its cluster, its own tags' requirements with those gates off or one minor release
     * back, instead of the run's shared cluster.
     */
    private static ClusterRequirements requirements(ExtensionContext context) {
        if (AnnotationSupport.isAnnotated(context.getTestMethod(), UpgradesCluster.class)) {
            ClusterRequirements current = ClusterRequirements.forTags(context.getTags());
            Assumptions.assumeTrue(current.kubernetesVersion().compareTo(FeatureGates.OLDEST_VERSION) > 0,
                    () -> "kdra emulates no Kubernetes release before " + FeatureGates.OLDEST_VERSION
                            + " to upgrade from to " + current.kubernetesVersion());
            return current.upgradableFromPreviousMinor();
        }
        Set<String> gatesOff = new TreeSet<>();
        AnnotationSupport.findAnnotation(context.getTestClass(), DisabledFeatureGates.class)
                .ifPresent(off -> gatesOff.addAll(Arrays.asList(off.value())));
        AnnotationSupport.findAnnotation(context.getTestMethod(), DisabledFeatureGates.class)
                .ifPresent(off -> gatesOff.addAll(Arrays.asList(off.value())));
        ClusterRequirements fromTags = gatesOff.isEmpty() ? requirements(context.getTags())
                : ClusterRequirements.forTags(context.getTags()).withFeatureGatesOff(gatesOff);
        boolean realWiping = AnnotationSupport.isAnnotated(context.getTestMethod(), RealSliceWipingDelay.class)
                || AnnotationSupport.isAnnotated(context.getTestClass(), RealSliceWipingDelay.class);
        ClusterRequirements withDelay = realWiping ? fromTags.withRealSliceWipingDelay() : fromTags;
        return AnnotationSupport.isAnnotated(context.getTestClass(), NodeSuite.class) ? withDelay.forNodeSuite()
                : withDelay;
    }

    /**
     * One embedded cluster for every spec of the run: the union of the plan's feature gates and its highest kubelet
     * version, as upstream's "-all" jobs run the DRA specs on one cluster with every DRA gate on. If no version
     * accepts that union, each spec gets a cluster of its own requirements.
     */
    static ClusterRequirements requirements(Set<String> specTags) {
        return SuitePlan.labels().filter(planLabels -> planLabels.containsAll(specTags))
                .flatMap(FrameworkExtension::planRequirements)
                .orElseGet(() -> ClusterRequirements.forTags(specTags));
    }

    /** The plan's requirements, computed once per plan (checking the gates logs their warnings). */
    private static synchronized Optional<ClusterRequirements> planRequirements(Set<String> planLabels) {
        if (lastPlan == null || lastPlan.labels() != planLabels) {
            ClusterRequirements union = ClusterRequirements.forTags(planLabels);
            lastPlan = new PlanRequirements(planLabels, startable(union) ? Optional.of(union) : Optional.empty());
        }
        return lastPlan.requirements();
    }

    private static boolean startable(ClusterRequirements requirements) {
        try {
            FeatureGates.parse(requirements.kubernetesVersion(), requirements.featureGatesFlag());
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static Framework framework(ExtensionContext context) {
        Object instance = context.getRequiredTestInstance();
        for (Class<?> type = instance.getClass(); type != null; type = type.getSuperclass()) {
            Optional<Field> field = Arrays.stream(type.getDeclaredFields())
                    .filter(candidate -> candidate.getType() == Framework.class).findFirst();
            if (field.isPresent()) {
                try {
                    field.get().setAccessible(true);
                    return (Framework) field.get().get(instance);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("cannot read the Framework field of " + type.getName(), e);
                }
            }
        }
        throw new IllegalStateException(instance.getClass().getName()
                + " has no Framework field: spec classes start with `final Framework f = Framework.create(\"dra\");`");
    }
}
