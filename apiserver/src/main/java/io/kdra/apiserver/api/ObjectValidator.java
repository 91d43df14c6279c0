package io.kdra.apiserver.api;

import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * Validation for one kind, registered with the API server per group and kind. Objects are given in the storage
 * version. An empty list means valid; any error makes the request fail with 422 Invalid.
 */
public interface ObjectValidator {

    List<FieldError> validateCreate(ObjectNode object);

    /** A write through the main resource; {@code old} is the stored object. */
    List<FieldError> validateUpdate(ObjectNode object, ObjectNode old);

    /** A write through the status subresource; {@code old} is the stored object. */
    default List<FieldError> validateStatusUpdate(ObjectNode object, ObjectNode old) {
        return List.of();
    }
}
