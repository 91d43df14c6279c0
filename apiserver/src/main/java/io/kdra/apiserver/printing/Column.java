package io.kdra.apiserver.printing;

import java.time.Instant;
import java.util.function.BiFunction;
import tools.jackson.databind.JsonNode;

/**
 * One column of a server-side table ({@code kubectl get}): its definition as a {@code TableColumnDefinition} and how
 * a cell is computed from a stored object at a point in time (for ages).
 *
 * @param type the OpenAPI type of the cells: {@code string}, {@code integer}, ...
 * @param format {@code name} for the name column, else empty
 * @param priority 0 for the default columns, 1 for those of {@code -o wide}
 */
public record Column(String name, String type, String format, int priority, String description,
        BiFunction<JsonNode, Instant, Object> cell) {}
