package io.kdra.apiserver.http;

import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAPI documents kubectl downloads before it writes: {@code /openapi/v2} (protobuf, which kubectl parses before
 * any create or apply) and {@code /openapi/v3} with one document per group version. The documents carry no schemas;
 * they declare, per kind, the PATCH operation with the {@code fieldValidation} parameter, so kubectl leaves field
 * validation to the server and sends {@code fieldValidation=Strict}.
 */
final class OpenApi {

    private static final String V3_PREFIX = "/openapi/v3/";

    private final KindRegistry kinds;
    private final Discovery discovery;
    private final String gitVersion;

    OpenApi(KindRegistry kinds, Discovery discovery, String gitVersion) {
        this.kinds = kinds;
        this.discovery = discovery;
        this.gitVersion = gitVersion;
    }

    /** @return whether the path was an OpenAPI document and has been answered */
    boolean serve(HttpServerRequest request, String path) {
        if (path.equals("/openapi/v2")) {
            request.response().putHeader("Content-Type", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
                    .end(Buffer.buffer(v2Document()));
            return true;
        }
        if (path.equals("/openapi/v3")) {
            Responses.json(request.response(), 200, v3Root());
            return true;
        }
        if (path.startsWith(V3_PREFIX)) {
            ObjectNode document = v3Document(path.substring(V3_PREFIX.length()));
            if (document != null) {
                Responses.json(request.response(), 200, document);
                return true;
            }
        }
        return false;
    }

    private ObjectNode v3Root() {
        ObjectNode root = Json.object();
        ObjectNode paths = root.putObject("paths");
        paths.putObject("api/v1").put("serverRelativeURL", "/openapi/v3/api/v1?hash=" + hash("api/v1"));
        for (String group : discovery.groups()) {
            for (String version : discovery.versions(group)) {
                if (kinds.types().stream().noneMatch(type -> type.group().equals(group) && type.serves(version))) {
                    continue; // the review groups: create only, nothing to describe for a patch
                }
                String key = "apis/" + group + "/" + version;
                paths.putObject(key).put("serverRelativeURL", "/openapi/v3/" + key + "?hash=" + hash(key));
            }
        }
        return root;
    }

    private ObjectNode v3Document(String groupVersionPath) {
        String group;
        String version;
        if (groupVersionPath.equals("api/v1")) {
            group = "";
            version = "v1";
        } else if (groupVersionPath.startsWith("apis/") && groupVersionPath.split("/").length == 3) {
            group = groupVersionPath.split("/")[1];
            version = groupVersionPath.split("/")[2];
        } else {
            return null;
        }
        ObjectNode document = Json.object();
        document.put("openapi", "3.0.0");
        ObjectNode info = document.putObject("info");
        info.put("title", "Kubernetes");
        info.put("version", gitVersion);
        ObjectNode paths = document.putObject("paths");
        boolean any = false;
        for (ResourceType type : kinds.types()) {
            if (!type.group().equals(group) || !type.serves(version)) {
                continue;
            }
            any = true;
            String prefix = group.isEmpty() ? "/api/v1" : "/apis/" + group + "/" + version;
            String path = prefix + (type.namespaced() ? "/namespaces/{namespace}/" : "/") + type.plural() + "/{name}";
            ObjectNode patch = paths.putObject(path).putObject("patch");
            ObjectNode gvk = patch.putObject("x-kubernetes-group-version-kind");
            gvk.put("group", group);
            gvk.put("version", version);
            gvk.put("kind", type.kind());
            for (String parameter : new String[] {"dryRun", "fieldManager", "fieldValidation", "force"}) {
                ObjectNode entry = patch.putArray("parameters").addObject();
                entry.put("name", parameter);
                entry.put("in", "query");
                entry.putObject("schema").put("type", parameter.equals("force") ? "boolean" : "string");
            }
            ObjectNode content = patch.putObject("requestBody").putObject("content");
            for (String mediaType : new String[] {PatchEndpoint.JSON_PATCH, PatchEndpoint.MERGE_PATCH,
                    PatchEndpoint.APPLY_PATCH}) {
                content.putObject(mediaType);
            }
        }
        document.putObject("components").putObject("schemas");
        return any ? document : null;
    }

    private String hash(String key) {
        return Integer.toHexString((gitVersion + key + kinds.types().size()).hashCode());
    }

    /** A gnostic openapi_v2.Document with swagger "2.0" and info, in protobuf wire format. */
    private byte[] v2Document() {
        ByteArrayOutputStream info = new ByteArrayOutputStream();
        field(info, 1, "Kubernetes".getBytes(StandardCharsets.UTF_8));
        field(info, 2, gitVersion.getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream document = new ByteArrayOutputStream();
        field(document, 1, "2.0".getBytes(StandardCharsets.UTF_8));
        field(document, 2, info.toByteArray());
        return document.toByteArray();
    }

    private static void field(ByteArrayOutputStream out, int number, byte[] value) {
        varint(out, (number << 3) | 2);
        varint(out, value.length);
        out.writeBytes(value);
    }

    private static void varint(ByteArrayOutputStream out, int value) {
        int v = value;
        while ((v & ~0x7F) != 0) {
            out.write((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }
}
