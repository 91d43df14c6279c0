package io.kdra.apiserver.nodeproxy;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.InvalidObject;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.api.FieldError;
import io.vertx.core.MultiMap;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.node.LongNode;

/**
 * The options of a {@code pods/log} request (core/v1 PodLogOptions) as read from a query, validated as
 * kube-apiserver's ValidatePodLogOptions does. The kubelet validates its {@code /containerLogs} query with the same
 * rules, as upstream's kubelet shares the validation with the API server.
 *
 * @param container the container named by the request; null or empty means the pod's only container
 * @param tailLines null for all lines
 * @param limitBytes null for no limit
 * @param sinceSeconds null unless given
 * @param sinceTime null unless given
 */
public record PodLogOptions(String container, boolean follow, boolean previous, boolean timestamps, Long tailLines,
        Long limitBytes, Long sinceSeconds, Instant sinceTime) {

    /** The kind named by the 422 of invalid options. */
    private static final ResourceType KIND = new ResourceType("", List.of("v1"), "v1", "PodLogOptions", "",
            true, List.of(), List.of(), Set.of(), ResourceType.StatusOnCreate.KEEP, null);

    /**
     * @param name the pod, named by the error of invalid options
     * @throws ApiException 400 for a value that does not parse, 422 for options that are invalid together or alone
     */
    public static PodLogOptions parse(MultiMap query, String name) {
        PodLogOptions options = new PodLogOptions(query.get("container"), QueryValues.flag(query, "follow"),
                QueryValues.flag(query, "previous"), QueryValues.flag(query, "timestamps"),
                QueryValues.integer(query, "tailLines"), QueryValues.integer(query, "limitBytes"),
                QueryValues.integer(query, "sinceSeconds"), time(query.get("sinceTime")));
        options.validate(name);
        return options;
    }

    private static Instant time(String value) {
        if (value == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(value).toInstant();
        } catch (DateTimeParseException e) {
            throw ApiException.badRequest(String.format(
                    "invalid value for sinceTime: \"%s\" is not a time in RFC 3339 format", value));
        }
    }

    private void validate(String name) {
        List<FieldError> errors = new ArrayList<>();
        if (tailLines != null && tailLines < 0) {
            errors.add(new FieldError(FieldError.Type.INVALID, "tailLines", LongNode.valueOf(tailLines),
                    "must be greater than or equal to 0"));
        }
        if (limitBytes != null && limitBytes < 1) {
            errors.add(new FieldError(FieldError.Type.INVALID, "limitBytes", LongNode.valueOf(limitBytes),
                    "must be greater than 0"));
        }
        if (sinceSeconds != null && sinceTime != null) {
            errors.add(new FieldError(FieldError.Type.FORBIDDEN, "",
                    null, "at most one of `sinceTime` or `sinceSeconds` may be specified"));
        } else if (sinceSeconds != null && sinceSeconds < 1) {
            errors.add(new FieldError(FieldError.Type.INVALID, "sinceSeconds", LongNode.valueOf(sinceSeconds),
                    "must be greater than 0"));
        }
        if (!errors.isEmpty()) {
            throw InvalidObject.of(KIND, name, errors);
        }
    }

    /** @return the time the log starts at (sinceTime, or now less sinceSeconds), or null for the whole log */
    public Instant since(Instant now) {
        return sinceSeconds != null ? now.minusSeconds(sinceSeconds) : sinceTime;
    }

    /** @return the kubelet's {@code /containerLogs} query, as kube-apiserver's LogLocation builds it */
    String kubeletQuery() {
        QueryValues.Builder query = new QueryValues.Builder()
                .addIf(follow, "follow", "true")
                .addIf(previous, "previous", "true")
                .addIf(timestamps, "timestamps", "true");
        if (sinceSeconds != null) {
            query.add("sinceSeconds", Long.toString(sinceSeconds));
        }
        if (sinceTime != null) {
            query.add("sinceTime", sinceTime.truncatedTo(ChronoUnit.SECONDS).toString());
        }
        if (tailLines != null) {
            query.add("tailLines", Long.toString(tailLines));
        }
        if (limitBytes != null) {
            query.add("limitBytes", Long.toString(limitBytes));
        }
        return query.toString();
    }
}
