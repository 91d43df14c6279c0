package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.InvalidObject;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.schema.DecodingException;
import io.kdra.apiserver.schema.KindSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns a request body into an object of the URL's kind: malformed JSON, a different kind or group, a value of the
 * wrong JSON type and (when asked) unknown fields at any depth are rejected with the Status kube-apiserver answers;
 * otherwise unknown fields are dropped with a warning each.
 */
final class BodyDecoder {

    /** The fieldValidation directive of the request. */
    enum FieldValidation {
        IGNORE,
        WARN,
        STRICT;

        static FieldValidation parse(String value) {
            if (value == null || value.isEmpty() || value.equals("Warn")) {
                return WARN;
            }
            if (value.equals("Strict")) {
                return STRICT;
            }
            if (value.equals("Ignore")) {
                return IGNORE;
            }
            throw ApiException.badRequest(String.format(
                    "fieldValidation directive \"%s\" is not valid, must be one of: Ignore, Warn, Strict", value));
        }
    }

    /** A decoded object in the version its apiVersion names, with the warnings to send back. */
    record Decoded(ObjectNode object, String version, List<String> warnings) {}

    private BodyDecoder() {}

    static JsonNode parse(byte[] body) {
        return parse(body, null);
    }

    /** @param contentType the request's; a YAML body that is JSON is read as JSON, which is faster */
    static JsonNode parse(byte[] body, String contentType) {
        requireBody(body);
        if (!MediaTypes.isYamlBody(contentType)) {
            return parseJson(body);
        }
        if (startsWithBrace(body)) {
            try {
                return Json.parse(body);
            } catch (JacksonException e) {
                // a YAML flow mapping such as {kind: Pod} is no JSON
            }
        }
        JsonNode document;
        try {
            document = Json.parseYaml(body);
        } catch (YamlEngineException e) {
            throw ApiException.badRequest("error converting YAML to JSON: " + e.getMessage());
        }
        if (document.isMissingNode()) {
            throw ApiException.badRequest("the body of the request holds no YAML document");
        }
        return document;
    }

    private static void requireBody(byte[] body) {
        if (body == null || body.length == 0) {
            throw ApiException.badRequest("the body of the request is empty");
        }
    }

    private static JsonNode parseJson(byte[] body) {
        try {
            return Json.parse(body);
        } catch (JacksonException e) {
            throw ApiException.badRequest("couldn't get version/kind; json parse error: " + e.getOriginalMessage());
        }
    }

    private static boolean startsWithBrace(byte[] body) {
        for (byte b : body) {
            if (!Character.isWhitespace(b)) {
                return b == '{';
            }
        }
        return false;
    }

    /**
     * Decodes the body of a create or update; a property a JSON object repeats is reported as Go's strict decoder
     * reports it ({@code duplicate field "spec.replicas"}), with the unknown fields, and the last value wins.
     */
    static Decoded decode(ResourceType type, String urlVersion, byte[] body, String contentType,
            FieldValidation validation) {
        JsonNode node;
        String duplicate = null;
        if (MediaTypes.isYamlBody(contentType)) {
            node = parse(body, contentType);
        } else {
            requireBody(body);
            try {
                Json.Parsed parsed = Json.parseNoticingDuplicates(body);
                node = parsed.node();
                duplicate = parsed.duplicate();
            } catch (JacksonException e) {
                throw ApiException.badRequest("couldn't get version/kind; json parse error: " + e.getOriginalMessage());
            }
        }
        Decoded typed = typed(type, urlVersion, node);
        List<String> problems = new ArrayList<>();
        if (duplicate != null) {
            problems.add("duplicate field \"" + duplicate + "\"");
        }
        // strict validation reports a repeated field with the unknown ones, so these come back as warnings first
        problems.addAll(decodeFields(type.group(), typed.version(), type.kind(), typed.object(),
                validation == FieldValidation.STRICT ? FieldValidation.WARN : validation));
        if (!problems.isEmpty() && validation == FieldValidation.STRICT) {
            throw ApiException.badRequest(cannotHandle(typed.version(), type.kind()) + "strict decoding error: "
                    + String.join(", ", problems));
        }
        return new Decoded(typed.object(), typed.version(), validation == FieldValidation.IGNORE ? List.of() : problems);
    }

    /**
     * Decodes a server-side apply configuration. Apply needs a field's schema to merge it, so kube-apiserver rejects
     * unknown fields in one whatever the field validation, with the error of its structured merge.
     */
    static ObjectNode decodeApplyConfiguration(ResourceType type, String urlVersion, JsonNode config) {
        Decoded typed = typed(type, urlVersion, config);
        if (!typed.version().equals(urlVersion)) {
            throw ApiException.badRequest(String.format("Incorrect version specified in apply patch. Specified patch "
                    + "version: %s, expected: %s", type.apiVersion(typed.version()), type.apiVersion(urlVersion)));
        }
        List<String> unknown;
        try {
            unknown = decodeAgainstSchema(type.group(), typed.version(), type.kind(), typed.object());
        } catch (DecodingException e) {
            throw ApiException.badRequest(cannotHandle(typed.version(), type.kind()) + e.getMessage());
        }
        if (!unknown.isEmpty()) {
            List<String> errors = unknown.stream().map(f -> "." + f + ": field not declared in schema").toList();
            throw ApiException.badRequest(String.format("failed to create typed patch object (%s/%s, Kind=%s): %s",
                    type.group(), typed.version(), type.kind(),
                    errors.size() == 1 ? errors.get(0) : "errors:\n  " + String.join("\n  ", errors)));
        }
        return typed.object();
    }

    /** The body as an object of the URL's kind, with the version its apiVersion names; no warnings yet. */
    private static Decoded typed(ResourceType type, String urlVersion, JsonNode node) {
        if (!node.isObject()) {
            throw ApiException.badRequest("couldn't get version/kind; json parse error: json: cannot unmarshal "
                    + node.getNodeType().toString().toLowerCase(java.util.Locale.ROOT) + " into Go value of type "
                    + "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                    + "\"json:\\\"kind,omitempty\\\"\" }");
        }
        ObjectNode object = (ObjectNode) node;
        String kind = Json.text(object, "kind");
        String apiVersion = Json.text(object, "apiVersion");
        if (kind == null || kind.isEmpty()) {
            object.put("kind", type.kind());
            kind = type.kind();
        }
        if (apiVersion == null || apiVersion.isEmpty()) {
            apiVersion = type.apiVersion(urlVersion);
            object.put("apiVersion", apiVersion);
        }
        int slash = apiVersion.lastIndexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        String version = apiVersion.substring(slash + 1);
        if (!group.equals(type.group()) || !type.serves(version)) {
            throw ApiException.badRequest(String.format(
                    "the API version in the data (%s) does not match the expected API version (%s)", apiVersion,
                    type.apiVersion(urlVersion)));
        }
        if (!kind.equals(type.kind())) {
            throw ApiException.badRequest(String.format("%s in version \"%s\" cannot be handled as a %s: no kind "
                    + "\"%s\" is registered for version \"%s\"", kind, version, type.kind(), kind, apiVersion));
        }
        return new Decoded(object, version, List.of());
    }

    /**
     * Decodes the fields of an object of the kind as kube-apiserver does: a value of the wrong JSON type is a 400,
     * unknown fields are dropped, and a 400 under strict validation.
     *
     * @return the warnings to send back: the unknown fields, unless the client asked to ignore them
     */
    static List<String> decodeFields(String group, String version, String kind, ObjectNode object,
            FieldValidation validation) {
        return decodeFields(group, version, kind, object, validation,
                why -> ApiException.badRequest(cannotHandle(version, kind) + why));
    }

    /**
     * Decodes the result of a patch: as {@link #decodeFields}, but what does not decode is a 422 naming the patch,
     * as kube-apiserver answers it. The invalid value shown is the patched object as far as decoding got (upstream
     * shows it before decoding): keeping a copy of every patch's result for the rare failure would cost every patch.
     */
    static List<String> decodePatchedFields(String group, String version, String kind, ObjectNode patched,
            FieldValidation validation) {
        return decodeFields(group, version, kind, patched, validation,
                why -> InvalidObject.ofPatch(Json.string(patched), why));
    }

    private static List<String> decodeFields(String group, String version, String kind, ObjectNode object,
            FieldValidation validation, Function<String, ApiException> failure) {
        List<String> texts;
        try {
            texts = decodeAgainstSchema(group, version, kind, object).stream()
                    .map(f -> "unknown field \"" + f + "\"").toList();
        } catch (DecodingException e) {
            throw failure.apply(e.getMessage());
        }
        if (!texts.isEmpty() && validation == FieldValidation.STRICT) {
            throw failure.apply("strict decoding error: " + String.join(", ", texts));
        }
        return validation == FieldValidation.IGNORE ? List.of() : texts;
    }

    /**
     * Checks the object's JSON types and drops its unknown and null fields.
     *
     * @return the paths of the unknown fields
     * @throws DecodingException when a value has the wrong JSON type
     */
    private static List<String> decodeAgainstSchema(String group, String version, String kind, ObjectNode object) {
        return KindSchema.of(group, version, kind).map(schema -> schema.decode(object)).orElse(List.of());
    }

    private static String cannotHandle(String version, String kind) {
        return String.format("%s in version \"%s\" cannot be handled as a %s: ", kind, version, kind);
    }
}
