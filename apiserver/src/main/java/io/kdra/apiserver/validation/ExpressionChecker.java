package io.kdra.apiserver.validation;

import java.util.Optional;

/**
 * Compiles a CEL selector expression for validation. The API server has no CEL of its own: whoever assembles it
 * (the embedded cluster, the CLI) passes the allocator's environment in; without one, only the length limit applies.
 */
@FunctionalInterface
public interface ExpressionChecker {

    /** @return the compile error, or empty when the expression compiles */
    Optional<String> check(String expression);
}
