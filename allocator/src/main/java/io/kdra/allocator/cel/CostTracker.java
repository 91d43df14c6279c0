package io.kdra.allocator.cel;

import dev.cel.common.ast.CelExpr;
import dev.cel.runtime.CelEvaluationListener;

/**
 * Charges one unit per evaluated expression node and stops the evaluation past the budget. cel-java has no cost
 * model; Kubernetes charges per call and by argument size, so this count is close to, not equal to, its cost.
 */
final class CostTracker implements CelEvaluationListener {

    /** Thrown out of the evaluation when the budget is spent; carries no stack trace because it is expected. */
    static final class CostLimitExceeded extends RuntimeException {

        CostLimitExceeded() {
            super("operation cancelled: actual cost limit exceeded", null, false, false);
        }
    }

    private final long limit;
    private long cost;

    CostTracker(long limit) {
        this.limit = limit;
    }

    @Override
    public void callback(CelExpr expr, Object value) {
        if (++cost > limit) {
            throw new CostLimitExceeded();
        }
    }
}
