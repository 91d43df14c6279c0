package io.kdra.kube;

import java.util.Optional;

/**
 * Compiles a CEL selector expression for validation. The API server has no CEL of its own: whoever assembles it
 * (the embedded cluster, the CLI) passes the allocator's environment in
 * ({@code CelSelectorCompiler.expressionChecker(FeatureGates)}); without one, only the length limit applies.
 */
@FunctionalInterface
public interface ExpressionChecker {

    /** Accepts every expression; the validators still enforce the 10 Ki length limit. */
    ExpressionChecker ACCEPT_ALL = expression -> Optional.empty();

    /** @return the compile error, or empty when the expression compiles */
    Optional<String> check(String expression);
}
