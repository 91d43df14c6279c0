package io.kdra.apiserver.resource;

import tools.jackson.databind.node.ObjectNode;

/** Opaque device configuration, in classes, claims and allocation results. */
final class ConfigChecks {

    /** {@code DeviceConfigMaxSize}: configs per class or claim. */
    static final int CONFIGS_MAX = 32;
    /** {@code OpaqueParametersMaxLength}. */
    static final int OPAQUE_PARAMETERS_MAX_LENGTH = 10 * 1024;

    private ConfigChecks() {
    }

    /** {@code validateDeviceConfiguration}: exactly the {@code opaque} member is supported. */
    static void deviceConfiguration(ValidationRun run, ObjectNode config, FieldPath path, boolean stored) {
        ObjectNode opaque = run.object(config, "opaque", path);
        FieldPath opaquePath = path.child("opaque");
        if (opaque == null) {
            run.add(FieldErrors.required(opaquePath, ""));
            return;
        }
        FieldChecks.driverName(run, run.string(opaque, "driver", opaquePath), opaquePath.child("driver"));
        FieldChecks.rawObject(run, ValidationRun.present(opaque, "parameters"), opaquePath.child("parameters"), stored,
                OPAQUE_PARAMETERS_MAX_LENGTH);
    }
}
