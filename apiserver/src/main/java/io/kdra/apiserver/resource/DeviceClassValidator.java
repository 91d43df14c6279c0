package io.kdra.apiserver.resource;

import io.kdra.kube.ExpressionChecker;
import tools.jackson.databind.node.ObjectNode;

/**
 * DeviceClass ({@code ValidateDeviceClass}, {@code ValidateDeviceClassUpdate}). The spec is mutable; selectors and
 * configs that are unchanged on update count as stored and are not re-checked against the CEL environment or the
 * parameter size limit.
 */
final class DeviceClassValidator extends KindValidator {

    private static final String REQUESTS_PREFIX = "requests.";

    DeviceClassValidator(ExpressionChecker expressions) {
        super(expressions);
    }

    @Override
    void check(ValidationRun run, ObjectNode object, ObjectNode old) {
        FieldPath path = FieldPath.ROOT.child("spec");
        ObjectNode spec = run.object(object, "spec", FieldPath.ROOT);
        ObjectNode oldSpec = old == null ? null : JsonNodes.objectOrEmpty(old.get("spec"));
        boolean selectorsStored = oldSpec != null
                && JsonNodes.semanticEquals(JsonNodes.get(spec, "selectors"), oldSpec.get("selectors"));
        SelectorChecks.selectors(run, spec, path, selectorsStored);
        boolean configsStored = oldSpec != null
                && JsonNodes.semanticEquals(JsonNodes.get(spec, "config"), oldSpec.get("config"));
        CollectionChecks.list(run, run.items(spec, "config", path), ConfigChecks.CONFIGS_MAX, path.child("config"),
                (item, itemPath) -> ConfigChecks.deviceConfiguration(run, run.struct(item, itemPath), itemPath,
                        configsStored));
        String extendedResourceName = run.stringPointer(spec, "extendedResourceName", path);
        if (extendedResourceName != null && !isExtendedResourceName(extendedResourceName)) {
            run.add(FieldErrors.invalid(path.child("extendedResourceName"), extendedResourceName,
                    "must be a valid extended resource name"));
        }
    }

    /** Core {@code IsExtendedResourceName}: domain-prefixed, not in kubernetes.io, valid as a quota name. */
    static boolean isExtendedResourceName(String name) {
        boolean nativeResource = !name.contains("/") || name.contains("kubernetes.io/");
        if (nativeResource || name.startsWith(REQUESTS_PREFIX)) {
            return false;
        }
        return NameFormats.qualifiedName(REQUESTS_PREFIX + name).isEmpty();
    }
}
