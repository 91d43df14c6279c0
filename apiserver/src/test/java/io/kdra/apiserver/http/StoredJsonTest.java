package io.kdra.apiserver.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.storage.Store;
import io.kdra.apiserver.storage.StoredObject;
import io.kdra.apiserver.storage.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** The answers assembled from shared bytes are exactly what serialising the equivalent tree gives. */
class StoredJsonTest {

    private static final String ALPHABET = "ab\"\\/\n\t\u00e9\u4e2d\ud83d\ude00 {}[],:";

    @Test
    void listsAndEventsEqualTheirTrees() {
        Random random = new Random(20261203L);
        for (int round = 0; round < 200; round++) {
            List<StoredObject> entries = storedObjects(random, random.nextInt(5));
            ObjectNode head = Json.object();
            head.put("kind", "ConfigMapList");
            head.put("apiVersion", "v1");
            head.putObject("metadata").put("resourceVersion", text(random));

            ObjectNode tree = head.deepCopy();
            var items = tree.putArray("items");
            List<byte[]> itemBytes = new ArrayList<>();
            for (StoredObject entry : entries) {
                items.add(entry.object());
                itemBytes.add(entry.json());
            }
            assertThat(StoredJson.list(head, itemBytes).toString(StandardCharsets.UTF_8))
                    .isEqualTo(Json.string(tree));

            for (StoredObject entry : entries) {
                ObjectNode event = Json.object();
                event.put("type", "MODIFIED");
                event.set("object", entry.object());
                assertThat(new String(StoredJson.event(WatchEvent.Type.MODIFIED, entry.json()), StandardCharsets.UTF_8))
                        .isEqualTo(Json.string(event));
            }
        }
    }

    /** Stored through a real store, so the entries are the ones the server shares. */
    private static List<StoredObject> storedObjects(Random random, int count) {
        Store store = new Store(10);
        for (int i = 0; i < count; i++) {
            ObjectNode object = Json.object();
            object.put("kind", "ConfigMap");
            object.putObject("metadata").put("name", "cm-" + i).put("namespace", "default");
            ObjectNode data = object.putObject("data");
            for (int j = random.nextInt(4); j > 0; j--) {
                data.put(text(random), text(random));
            }
            object.put("number", random.nextInt());
            store.write("/configmaps", "default", "cm-" + i, false, current -> Store.Change.put(object));
        }
        return store.list("/configmaps", "default").entries();
    }

    private static String text(Random random) {
        StringBuilder text = new StringBuilder();
        for (int i = random.nextInt(8); i > 0; i--) {
            int at = random.nextInt(ALPHABET.length() - 1);
            char c = ALPHABET.charAt(at);
            // keep surrogate pairs whole
            String piece = Character.isHighSurrogate(c) ? ALPHABET.substring(at, at + 2) : String.valueOf(c);
            text.append(Character.isLowSurrogate(c) ? "x" : piece);
        }
        return text.toString();
    }
}
