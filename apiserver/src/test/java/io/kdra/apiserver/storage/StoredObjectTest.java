package io.kdra.apiserver.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class StoredObjectTest {

    @Test
    void convertsAndSerialisesOncePerVersionWhoeverAsks() {
        ObjectNode object = Json.object();
        object.put("apiVersion", "example.com/v1");
        object.putObject("metadata").put("name", "one");
        StoredObject stored = new StoredObject(object);
        AtomicInteger conversions = new AtomicInteger();

        byte[] first = stored.json("v1beta1", toVersion("v1beta1", conversions));
        byte[] second = stored.json("v1beta1", toVersion("v1beta1", conversions));
        byte[] other = stored.json("v1alpha1", toVersion("v1alpha1", conversions));

        assertThat(second).isSameAs(first);
        assertThat(conversions).hasValue(2);
        assertThat(Json.parse(first).at("/apiVersion").stringValue()).isEqualTo("example.com/v1beta1");
        assertThat(Json.parse(other).at("/apiVersion").stringValue()).isEqualTo("example.com/v1alpha1");
        assertThat(Json.parse(stored.json()).at("/apiVersion").stringValue()).isEqualTo("example.com/v1");
    }

    private static UnaryOperator<ObjectNode> toVersion(String version, AtomicInteger count) {
        return object -> {
            count.incrementAndGet();
            return object.deepCopy().put("apiVersion", "example.com/" + version);
        };
    }
}
