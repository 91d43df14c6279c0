package io.kdra.kube.taint;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Node taints and pod tolerations as upstream's {@code v1.Toleration.ToleratesTaint} and {@code v1helper} match them:
 * an empty toleration effect matches every effect, an empty key (with {@code Exists}) every key, an empty operator means
 * {@code Equal}, and an unknown operator tolerates nothing. (The alpha Lt/Gt operators of
 * TaintTolerationComparisonOperators are not modelled.)
 */
public final class PodTolerations {

    /** The effects the scheduler's TaintToleration filter considers. */
    public static final Predicate<Taint> SCHEDULING_EFFECTS =
            taint -> "NoSchedule".equals(taint.getEffect()) || "NoExecute".equals(taint.getEffect());

    /** The effect the taint manager evicts for. */
    public static final Predicate<Taint> NO_EXECUTE = taint -> "NoExecute".equals(taint.getEffect());

    private PodTolerations() {}

    /** {@code Toleration.ToleratesTaint}. */
    public static boolean tolerates(Toleration toleration, Taint taint) {
        if (isSet(toleration.getEffect()) && !toleration.getEffect().equals(taint.getEffect())) {
            return false;
        }
        if (isSet(toleration.getKey()) && !toleration.getKey().equals(taint.getKey())) {
            return false;
        }
        String operator = toleration.getOperator() == null ? "" : toleration.getOperator();
        return switch (operator) {
            case "", "Equal" -> emptyIfNull(toleration.getValue()).equals(emptyIfNull(taint.getValue()));
            case "Exists" -> true;
            default -> false;
        };
    }

    /** {@code v1helper.TolerationsTolerateTaint}: whether any toleration (null: none) tolerates the taint. */
    public static boolean tolerated(List<Toleration> tolerations, Taint taint) {
        if (tolerations != null) {
            for (Toleration toleration : tolerations) {
                if (tolerates(toleration, taint)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * {@code v1helper.FindMatchingUntoleratedTaint}: the first taint that passes the filter and is not tolerated,
     * e.g. with {@link #SCHEDULING_EFFECTS} for the scheduler's filter.
     */
    public static Optional<Taint> firstUntolerated(List<Taint> taints, List<Toleration> tolerations,
                                                   Predicate<Taint> filter) {
        if (taints != null) {
            for (Taint taint : taints) {
                if (filter.test(taint) && !tolerated(tolerations, taint)) {
                    return Optional.of(taint);
                }
            }
        }
        return Optional.empty();
    }

    private static boolean isSet(String value) {
        return value != null && !value.isEmpty();
    }

    private static String emptyIfNull(String value) {
        return value == null ? "" : value;
    }
}
