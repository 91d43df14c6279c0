package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.printing.Column;
import io.kdra.apiserver.printing.Printers;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Server-side tables, what {@code kubectl get} asks for with
 * {@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io, ..., application/json}: a {@code meta.k8s.io}
 * {@code Table} with the kind's columns ({@link Printers}) and one row per object, for gets, lists and watches.
 */
final class Tables {

    /** What a row carries besides its cells: nothing, the object's metadata or the whole object. */
    enum IncludeObject {
        NONE,
        METADATA,
        OBJECT
    }

    /** A table request: the Table's apiVersion ({@code meta.k8s.io/v1} or {@code v1beta1}) and the row objects. */
    record Format(String apiVersion, IncludeObject include) {}

    private static final String META_GROUP = "meta.k8s.io";

    private final KindRegistry kinds;
    private final Clock clock;

    Tables(KindRegistry kinds, Clock clock) {
        this.kinds = kinds;
        this.clock = clock;
    }

    /**
     * @return the table the Accept header asks for before any plain JSON, or null when the client wants objects
     */
    static Format requested(Call call) {
        for (MediaTypes.MediaRange range : MediaTypes.parseAccept(call.request().getHeader("Accept"))) {
            if (isTableRequest(range)) {
                return new Format(META_GROUP + "/" + range.params().get("v"), include(call.param("includeObject")));
            }
            if ((range.isJson() || range.type().equals(MediaTypes.YAML)) && !range.params().containsKey("as")) {
                return null;
            }
        }
        return null;
    }

    /** @return whether the entry asks for a Table in a version the server writes */
    static boolean isTableRequest(MediaTypes.MediaRange range) {
        String version = range.params().get("v");
        return range.type().equals(Responses.JSON) && "Table".equals(range.params().get("as"))
                && META_GROUP.equals(range.params().get("g")) && ("v1".equals(version) || "v1beta1".equals(version));
    }

    private static IncludeObject include(String value) {
        if (value == null || value.isEmpty() || value.equals("Metadata")) {
            return IncludeObject.METADATA;
        }
        if (value.equals("None")) {
            return IncludeObject.NONE;
        }
        if (value.equals("Object")) {
            return IncludeObject.OBJECT;
        }
        throw ApiException.badRequest(String.format(
                "includeObject: Unsupported value: \"%s\": supported values: \"Metadata\", \"None\", \"Object\"",
                value));
    }

    /**
     * @param stored the objects in the storage version
     * @param version the version rows carry whole objects in
     * @param listMetadata the Table's metadata (resourceVersion, continue, remainingItemCount)
     */
    ObjectNode table(Format format, ResourceType type, String version, List<ObjectNode> stored,
            ObjectNode listMetadata) {
        ObjectNode table = Json.object();
        table.put("kind", "Table");
        table.put("apiVersion", format.apiVersion());
        table.set("metadata", listMetadata);
        List<Column> columns = Printers.forKind(type);
        ArrayNode definitions = table.putArray("columnDefinitions");
        for (Column column : columns) {
            ObjectNode definition = definitions.addObject();
            definition.put("name", column.name());
            definition.put("type", column.type());
            definition.put("format", column.format());
            definition.put("description", column.description());
            definition.put("priority", column.priority());
        }
        Instant now = clock.instant();
        ArrayNode rows = table.putArray("rows");
        for (ObjectNode object : stored) {
            ObjectNode row = rows.addObject();
            ArrayNode cells = row.putArray("cells");
            for (Column column : columns) {
                Object cell = column.cell().apply(object, now);
                if (cell instanceof Number number) {
                    cells.add(number.longValue());
                } else {
                    cells.add(String.valueOf(cell));
                }
            }
            switch (format.include()) {
                case METADATA -> row.set("object", partialMetadata(format, object));
                case OBJECT -> row.set("object", kinds.fromStorage(type, object, version));
                case NONE -> { }
            }
        }
        return table;
    }

    /** A one-row table of one object, as a get or a watch event carries it. */
    ObjectNode table(Format format, ResourceType type, String version, ObjectNode stored) {
        ObjectNode metadata = Json.object();
        String resourceVersion = Json.text(stored, "metadata", "resourceVersion");
        if (resourceVersion != null) {
            metadata.put("resourceVersion", resourceVersion);
        }
        return table(format, type, version, List.of(stored), metadata);
    }

    private static ObjectNode partialMetadata(Format format, ObjectNode object) {
        ObjectNode partial = Json.object();
        partial.put("kind", "PartialObjectMetadata");
        partial.put("apiVersion", format.apiVersion());
        partial.set("metadata", object.get("metadata").deepCopy());
        return partial;
    }
}
