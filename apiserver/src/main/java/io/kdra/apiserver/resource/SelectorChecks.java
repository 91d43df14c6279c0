package io.kdra.apiserver.resource;

import io.kdra.kube.ExpressionChecker;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Device selectors: CEL expressions, length-checked here and compiled by the run's {@code ExpressionChecker}. */
final class SelectorChecks {

    private static final Logger LOG = LoggerFactory.getLogger(SelectorChecks.class);

    /** {@code DeviceSelectorsMaxSize}. */
    static final int SELECTORS_MAX = 32;
    /** {@code CELSelectorExpressionMaxLength}. */
    static final int EXPRESSION_MAX_LENGTH = 10 * 1024;

    private SelectorChecks() {
    }

    /**
     * @param stored true when these selectors are already stored unchanged: a stored expression was valid when it
     *               was written and is not checked again, so that CEL environment changes never break old objects
     */
    static void selectors(ValidationRun run, ObjectNode parent, FieldPath parentPath, boolean stored) {
        FieldPath path = parentPath.child("selectors");
        List<JsonNode> selectors = run.items(parent, "selectors", parentPath);
        CollectionChecks.list(run, selectors, SELECTORS_MAX, path, (item, itemPath) -> {
            ObjectNode cel = run.object(run.struct(item, itemPath), "cel", itemPath);
            if (cel == null) {
                run.add(FieldErrors.required(itemPath.child("cel"), ""));
            } else {
                expression(run, run.string(cel, "expression", itemPath.child("cel")),
                        itemPath.child("cel", "expression"), stored);
            }
        });
    }

    private static void expression(ValidationRun run, String expression, FieldPath path, boolean stored) {
        if (stored) {
            return;
        }
        if (GoStrings.byteLength(expression) > EXPRESSION_MAX_LENGTH) {
            run.add(FieldErrors.tooLong(path, EXPRESSION_MAX_LENGTH));
            return;
        }
        Optional<String> compileError;
        try {
            compileError = run.expressions().check(expression);
        } catch (RuntimeException e) {
            // A failing checker is a bug of the CEL environment, not of the object: report it as upstream reports
            // an internal CEL error, and keep the stack trace in the log.
            LOG.warn("CEL checker failed on {}", path, e);
            run.add(FieldErrors.internal(path, "checking the CEL expression failed: " + e));
            return;
        }
        compileError.ifPresent(detail -> run.add(FieldErrors.invalid(path, expression, detail)));
    }
}
