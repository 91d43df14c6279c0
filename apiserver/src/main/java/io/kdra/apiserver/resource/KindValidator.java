package io.kdra.apiserver.resource;

import io.kdra.apiserver.api.ObjectValidator;
import io.kdra.apiserver.api.FieldError;
import io.kdra.kube.ExpressionChecker;
import java.util.List;
import java.util.function.Consumer;
import tools.jackson.databind.node.ObjectNode;

/** The validator of one kind: every call is one {@link ValidationRun}. */
abstract class KindValidator implements ObjectValidator {

    private final ExpressionChecker expressions;

    KindValidator(ExpressionChecker expressions) {
        this.expressions = expressions;
    }

    /**
     * The checks of a create, and by default of an update.
     *
     * @param old the stored object on update, null on create
     */
    abstract void check(ValidationRun run, ObjectNode object, ObjectNode old);

    @Override
    public final List<FieldError> validateCreate(ObjectNode object) {
        return run(run -> check(run, object, null));
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode object, ObjectNode old) {
        return run(run -> check(run, object, old));
    }

    final List<FieldError> run(Consumer<ValidationRun> checks) {
        ValidationRun run = new ValidationRun(expressions);
        checks.accept(run);
        return run.errors();
    }

    /** For kinds whose spec is checked on create and only for immutability afterwards. */
    final List<FieldError> immutableSpec(ObjectNode object, ObjectNode old) {
        return run(run -> {
            if (!JsonNodes.semanticEquals(object.get("spec"), old.get("spec"))) {
                run.add(FieldErrors.invalid(FieldPath.ROOT.child("spec"), object.get("spec"), "field is immutable"));
            }
        });
    }
}
