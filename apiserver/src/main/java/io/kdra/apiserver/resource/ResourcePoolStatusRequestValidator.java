package io.kdra.apiserver.resource;

import io.kdra.apiserver.api.FieldError;
import io.kdra.kube.ExpressionChecker;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * ResourcePoolStatusRequest (v1alpha3, {@code ValidateResourcePoolStatusRequest}, {@code ...Update},
 * {@code ...StatusUpdate}): a required driver name, an optional pool name, a limit of 1 to 1000; the spec is
 * immutable, and so is the status once the controller wrote it (the request is a one-shot snapshot).
 */
final class ResourcePoolStatusRequestValidator extends KindValidator {

    /** {@code ResourcePoolStatusRequestLimitMax}. */
    static final int LIMIT_MAX = 1000;

    ResourcePoolStatusRequestValidator(ExpressionChecker expressions) {
        super(expressions);
    }

    @Override
    void check(ValidationRun run, ObjectNode object, ObjectNode old) {
        FieldPath path = FieldPath.ROOT.child("spec");
        ObjectNode spec = JsonNodes.objectOrEmpty(run.object(object, "spec", FieldPath.ROOT));
        String driver = run.string(spec, "driver", path);
        if (driver.isEmpty()) {
            run.add(FieldErrors.required(path.child("driver"), "driver name is required"));
        } else {
            FieldChecks.driverName(run, driver, path.child("driver"));
        }
        String pool = run.stringPointer(spec, "poolName", path);
        if (pool != null && !pool.isEmpty()) {
            FieldChecks.poolName(run, pool, path.child("poolName"));
        }
        if (ValidationRun.present(spec, "limit") != null) {
            long limit = run.int64(spec, "limit", path);
            if (limit < 1) {
                run.add(FieldErrors.invalid(path.child("limit"), limit, "must be at least 1"));
            } else if (limit > LIMIT_MAX) {
                run.add(FieldErrors.invalid(path.child("limit"), limit, "must not exceed " + LIMIT_MAX));
            }
        }
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode object, ObjectNode old) {
        return immutableSpec(object, old);
    }

    @Override
    public List<FieldError> validateStatusUpdate(ObjectNode object, ObjectNode old) {
        return run(run -> {
            JsonNode oldStatus = old.get("status");
            if (oldStatus != null && !oldStatus.isNull()
                    && !JsonNodes.semanticEquals(object.get("status"), oldStatus)) {
                run.add(FieldErrors.invalid(FieldPath.ROOT.child("status"), object.get("status"),
                        "field is immutable"));
            }
        });
    }
}
