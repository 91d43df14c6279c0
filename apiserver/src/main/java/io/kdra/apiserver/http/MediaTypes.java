package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.protobuf.KubeProtobuf;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Content negotiation of resource requests. Bodies and answers are JSON, YAML, or protobuf for the kinds that have
 * a protobuf form ({@link KubeProtobuf}), as kube-apiserver speaks them. An Accept header that names nothing the
 * server writes is a 406, as upstream.
 */
final class MediaTypes {

    static final String YAML = "application/yaml";

    /** What an answer is written in. */
    enum Format {
        JSON,
        YAML,
        PROTOBUF
    }

    /** One entry of an Accept header: {@code application/json;as=Table;v=v1;g=meta.k8s.io}. */
    record MediaRange(String type, Map<String, String> params) {

        boolean isJson() {
            return type.equals(Responses.JSON) || type.equals("*/*") || type.equals("application/*");
        }
    }

    private MediaTypes() {}

    /**
     * @return the entries of the header, most preferred first: by their {@code q} value (1 when absent), then in their
     *     order; those with {@code q=0} left out; lower-case types; empty for no header
     */
    static List<MediaRange> parseAccept(String accept) {
        List<MediaRange> ranges = new ArrayList<>();
        if (accept == null || accept.isBlank()) {
            return ranges;
        }
        for (String entry : accept.split(",")) {
            String[] parts = entry.split(";");
            Map<String, String> params = new HashMap<>();
            for (int i = 1; i < parts.length; i++) {
                String[] pair = parts[i].split("=", 2);
                params.put(pair[0].trim(), pair.length > 1 ? pair[1].trim() : "");
            }
            ranges.add(new MediaRange(parts[0].trim().toLowerCase(Locale.ROOT), params));
        }
        ranges.removeIf(range -> quality(range) <= 0);
        ranges.sort(Comparator.comparingDouble(MediaTypes::quality).reversed());
        return ranges;
    }

    /** An unreadable q counts as 1, as a missing one does. */
    private static double quality(MediaRange range) {
        try {
            return Double.parseDouble(range.params().getOrDefault("q", "1"));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /**
     * @param protobuf whether the kind addressed has a protobuf form
     * @return what the answer is to be written in: the most preferred entry the server can write decides; a table
     *     is JSON or YAML only, as in kube-apiserver
     * @throws ApiException 406 when no entry can be written
     */
    static Format answerFormat(String accept, boolean watch, boolean protobuf) {
        List<MediaRange> ranges = parseAccept(accept);
        if (ranges.isEmpty()) {
            return Format.JSON;
        }
        for (MediaRange range : ranges) {
            String as = range.params().get("as");
            if (range.isJson() && (as == null || Tables.isTableRequest(range))) {
                return Format.JSON;
            }
            // YAML has no stream framing, so watches have none
            if (range.type().equals(YAML) && as == null && !watch) {
                return Format.YAML;
            }
            if (range.type().equals(KubeProtobuf.MEDIA_TYPE) && as == null && protobuf) {
                return Format.PROTOBUF;
            }
        }
        throw ApiException.of(406, "NotAcceptable", "only the following media types are accepted: "
                + Responses.JSON + ", " + YAML + (protobuf ? ", " + KubeProtobuf.MEDIA_TYPE : ""), null);
    }

    static boolean isProtobufBody(String contentType) {
        return mediaType(contentType).equals(KubeProtobuf.MEDIA_TYPE);
    }

    /** @return whether a request body of this Content-Type is YAML (an apply patch is YAML, JSON included) */
    static boolean isYamlBody(String contentType) {
        if (contentType == null) {
            return false;
        }
        String type = mediaType(contentType);
        return type.equals(YAML) || type.equals(PatchEndpoint.APPLY_PATCH);
    }

    /** @return the media type of a Content-Type header without its parameters, lower-case; empty for none */
    static String mediaType(String contentType) {
        if (contentType == null) {
            return "";
        }
        return contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    }
}
