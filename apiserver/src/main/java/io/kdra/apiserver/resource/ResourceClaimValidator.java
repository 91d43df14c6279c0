package io.kdra.apiserver.resource;

import io.kdra.apiserver.api.FieldError;
import io.kdra.kube.ExpressionChecker;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * ResourceClaim ({@code ValidateResourceClaim}, {@code ...Update}, {@code ...StatusUpdate}). The spec is checked on
 * create and is immutable afterwards; status writes are checked against the claim's own requests.
 */
final class ResourceClaimValidator extends KindValidator {

    ResourceClaimValidator(ExpressionChecker expressions) {
        super(expressions);
    }

    @Override
    void check(ValidationRun run, ObjectNode object, ObjectNode old) {
        FieldPath specPath = FieldPath.ROOT.child("spec");
        ObjectNode spec = run.object(object, "spec", FieldPath.ROOT);
        DeviceClaimChecks.deviceClaim(run, run.object(spec, "devices", specPath), specPath.child("devices"));
    }

    /** Only immutability is checked on update: other errors in the spec could not be fixed by the user anyway. */
    @Override
    public List<FieldError> validateUpdate(ObjectNode object, ObjectNode old) {
        return immutableSpec(object, old);
    }

    @Override
    public List<FieldError> validateStatusUpdate(ObjectNode object, ObjectNode old) {
        return run(run -> status(run, object, old));
    }

    private static void status(ValidationRun run, ObjectNode object, ObjectNode old) {
        ObjectNode status = JsonNodes.objectOrEmpty(run.object(object, "status", FieldPath.ROOT));
        ObjectNode oldStatus = JsonNodes.objectOrEmpty(old.get("status"));
        RequestNames requestNames = RequestNames.of(JsonNodes.get(object.get("spec"), "devices"));
        boolean deleted = ValidationRun.present(object.get("metadata"), "deletionTimestamp") != null;
        ClaimStatusChecks.status(run, status, oldStatus, requestNames, deleted);
    }
}
