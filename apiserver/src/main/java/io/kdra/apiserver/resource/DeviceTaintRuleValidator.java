package io.kdra.apiserver.resource;

import io.kdra.apiserver.api.FieldError;
import io.kdra.kube.ExpressionChecker;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * DeviceTaintRule ({@code ValidateDeviceTaintRule}, {@code ...Update}, {@code ...StatusUpdate}): the device selector
 * names, the taint (an unchanged effect is not checked again on update), and at most 8 status conditions.
 */
final class DeviceTaintRuleValidator extends KindValidator {

    /** {@code DeviceTaintRuleStatusMaxConditions}. */
    static final int STATUS_CONDITIONS_MAX = 8;

    DeviceTaintRuleValidator(ExpressionChecker expressions) {
        super(expressions);
    }

    /** On update, an unchanged taint effect is not checked again (see {@link TaintChecks#taint}). */
    @Override
    void check(ValidationRun run, ObjectNode object, ObjectNode old) {
        ObjectNode oldTaint = old == null ? null : JsonNodes.objectOrEmpty(JsonNodes.get(old.get("spec"), "taint"));
        FieldPath path = FieldPath.ROOT.child("spec");
        ObjectNode spec = run.object(object, "spec", FieldPath.ROOT);
        ObjectNode selector = run.object(spec, "deviceSelector", path);
        if (selector != null) {
            FieldPath selectorPath = path.child("deviceSelector");
            String driver = run.stringPointer(selector, "driver", selectorPath);
            if (driver != null) {
                FieldChecks.driverName(run, driver, selectorPath.child("driver"));
            }
            String pool = run.stringPointer(selector, "pool", selectorPath);
            if (pool != null) {
                FieldChecks.poolName(run, pool, selectorPath.child("pool"));
            }
            String device = run.stringPointer(selector, "device", selectorPath);
            if (device != null) {
                FieldChecks.dnsLabel(run, device, selectorPath.child("device"));
            }
        }
        TaintChecks.taint(run, JsonNodes.objectOrEmpty(run.object(spec, "taint", path)), oldTaint, path.child("taint"));
    }

    @Override
    public List<FieldError> validateStatusUpdate(ObjectNode object, ObjectNode old) {
        return run(run -> status(run, object));
    }

    private static void status(ValidationRun run, ObjectNode object) {
        FieldPath path = FieldPath.ROOT.child("status");
        ObjectNode status = run.object(object, "status", FieldPath.ROOT);
        List<JsonNode> conditions = run.items(status, "conditions", path);
        ConditionChecks.conditions(run, conditions, path.child("conditions"));
        if (conditions.size() > STATUS_CONDITIONS_MAX) {
            run.add(FieldErrors.tooMany(path.child("conditions"), conditions.size(), STATUS_CONDITIONS_MAX));
        }
    }
}
