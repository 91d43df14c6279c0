package io.kdra.apiserver.resource;

import io.kdra.apiserver.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import tools.jackson.databind.node.ObjectNode;

/**
 * The golden DRA objects: each directory under {@code src/test/resources/.../golden/} holds one object written in
 * every version that serves its kind.
 */
public final class GoldenObjects {

    private GoldenObjects() {}

    /** @return a fresh copy of the object in the version, e.g. {@code load("resourceclaim", "v1beta1")} */
    public static ObjectNode load(String object, String version) {
        String resource = "golden/" + object + "/" + version + ".json";
        try (InputStream json = GoldenObjects.class.getResourceAsStream(resource)) {
            if (json == null) {
                throw new IllegalStateException("missing test resource " + resource);
            }
            return (ObjectNode) Json.parse(json.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
