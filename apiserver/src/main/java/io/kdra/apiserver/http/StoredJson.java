package io.kdra.apiserver.http;

import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.storage.WatchEvent;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.ObjectNode;

/**
 * Answers assembled from the objects' shared JSON bytes rather than re-serialised trees. The output is byte for
 * byte what serialising the equivalent tree gives.
 */
final class StoredJson {

    private static final byte[] ITEMS = ",\"items\":[".getBytes(StandardCharsets.UTF_8);
    /** Every watcher writes every event: its type's opening is encoded once, not per event and watcher. */
    private static final Map<WatchEvent.Type, byte[]> EVENT_PREFIXES = new EnumMap<>(WatchEvent.Type.class);

    static {
        for (WatchEvent.Type type : WatchEvent.Type.values()) {
            EVENT_PREFIXES.put(type, ("{\"type\":\"" + type.name() + "\",\"object\":")
                    .getBytes(StandardCharsets.UTF_8));
        }
    }

    private StoredJson() {}

    /**
     * @param object the object's JSON
     * @return {@code {"type":"<type>","object":<object>}}
     */
    static byte[] event(WatchEvent.Type type, byte[] object) {
        byte[] prefix = EVENT_PREFIXES.get(type);
        byte[] line = new byte[prefix.length + object.length + 1];
        System.arraycopy(prefix, 0, line, 0, prefix.length);
        System.arraycopy(object, 0, line, prefix.length, object.length);
        line[line.length - 1] = '}';
        return line;
    }

    /**
     * @param head the list without its items (kind, apiVersion, metadata)
     * @param items the items' JSON, in order
     * @return the head with an {@code items} array appended as its last field
     */
    static Buffer list(ObjectNode head, List<byte[]> items) {
        byte[] headBytes = Json.bytes(head);
        int size = headBytes.length + ITEMS.length + items.size() + 2;
        for (byte[] item : items) {
            size += item.length;
        }
        Buffer buffer = Buffer.buffer(size);
        buffer.appendBytes(headBytes, 0, headBytes.length - 1).appendBytes(ITEMS);
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                buffer.appendByte((byte) ',');
            }
            buffer.appendBytes(items.get(i));
        }
        return buffer.appendBytes(new byte[] {']', '}'});
    }
}
