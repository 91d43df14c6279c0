package io.kdra.framework;

import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * The labels of every spec a run is about to execute, so that one embedded cluster can serve them all: the union of
 * their feature gates and the highest kubelet version, as upstream's "-all" jobs run every DRA spec on one kind cluster
 * with every DRA gate on. The JUnit Platform registers it through {@code ServiceLoader}, so the Maven build and
 * {@code kdra e2e} both feed it.
 */
public final class SuitePlan implements TestExecutionListener {

    private record Labelled(TestPlan plan, Set<String> labels) {
    }

    /** The latest plan started: a suite engine may run a nested plan of the same specs inside the outer one. */
    private static volatile Labelled current;

    /** The labels of all framework specs of the running plan; empty outside a plan (a spec run some other way). */
    static Optional<Set<String>> labels() {
        Labelled labelled = current;
        return labelled == null ? Optional.empty() : Optional.of(labelled.labels());
    }

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        Set<String> labels = new HashSet<>();
        testPlan.getRoots().forEach(root -> collect(testPlan, root, labels));
        current = new Labelled(testPlan, Set.copyOf(labels));
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        Labelled labelled = current;
        if (labelled != null && labelled.plan() == testPlan) {
            current = null;
        }
    }

    private static void collect(TestPlan plan, TestIdentifier node, Set<String> labels) {
        if (node.isTest() && node.getSource().orElse(null) instanceof MethodSource source) {
            Class<?> specClass = source.getJavaClass();
            if (isSpecClass(specClass)) {
                Method method = source.getJavaMethod();
                labels.addAll(SpecNames.labels(specClass, method));
            }
        }
        plan.getChildren(node).forEach(child -> collect(plan, child, labels));
    }

    private static boolean isSpecClass(Class<?> type) {
        for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
            if (candidate.isAnnotationPresent(DraSpec.class)) {
                return true;
            }
        }
        return false;
    }
}
