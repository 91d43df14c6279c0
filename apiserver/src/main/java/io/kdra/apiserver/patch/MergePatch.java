package io.kdra.apiserver.patch;

import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** RFC 7386 JSON merge patch: objects merge recursively, null deletes, everything else (arrays too) replaces. */
public final class MergePatch {

    private MergePatch() {}

    /** @return the patched document; the target may be modified */
    public static JsonNode apply(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        ObjectNode result = target != null && target.isObject() ? (ObjectNode) target
                : tools.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, JsonNode> entry : patch.properties()) {
            if (entry.getValue().isNull()) {
                result.remove(entry.getKey());
            } else {
                result.set(entry.getKey(), apply(result.get(entry.getKey()), entry.getValue()));
            }
        }
        return result;
    }
}
