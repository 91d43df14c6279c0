package io.kdra.allocator.cel;

import dev.cel.runtime.CelEvaluationException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns cel-java evaluation failures into the texts cel-go gives Kubernetes for the same failures, without cel-java's
 * position prefix, so the allocator's {@code CEL runtime error: ...} reads as upstream's.
 */
final class EvaluationErrors {

    private static final Pattern POSITION_PREFIX = Pattern.compile("^evaluation error(?: at [^:]*:\\d+)?: ");
    private static final Pattern MISSING_KEY = Pattern.compile("^key '(.*)' is not present in map\\.$");

    private EvaluationErrors() {
    }

    static String describe(CelEvaluationException failure) {
        for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof LibraryFunctionException || cause instanceof CostTracker.CostLimitExceeded) {
                return cause.getMessage();
            }
        }
        String message = POSITION_PREFIX.matcher(String.valueOf(failure.getMessage())).replaceFirst("");
        return switch (failure.getErrorCode()) {
            case ATTRIBUTE_NOT_FOUND -> {
                Matcher missingKey = MISSING_KEY.matcher(message);
                yield missingKey.matches() ? "no such key: " + missingKey.group(1) : message;
            }
            case DIVIDE_BY_ZERO -> "division by zero";
            case NUMERIC_OVERFLOW -> "integer overflow";
            case ITERATION_BUDGET_EXCEEDED -> "operation cancelled: " + message;
            default -> message;
        };
    }
}
