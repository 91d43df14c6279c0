package io.kdra.apiserver.scheduling;

import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.validation.Names;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The checks Workload and PodGroup share (upstream's declarative validation of {@code scheduling.k8s.io/v1beta1}):
 * the scheduling policy union, the list of resource claims, names. Collects errors with their field paths.
 */
final class GroupChecks {

    /** {@code MaxPodGroupResourceClaims}. */
    static final int MAX_RESOURCE_CLAIMS = 4;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final List<FieldError> errors = new ArrayList<>();

    List<FieldError> errors() {
        return errors;
    }

    void add(FieldError error) {
        errors.add(error);
    }

    void required(String path, String detail) {
        errors.add(new FieldError(FieldError.Type.REQUIRED, path, null, detail));
    }

    void invalid(String path, JsonNode value, String detail) {
        errors.add(new FieldError(FieldError.Type.INVALID, path, value, detail));
    }

    void forbidden(String path, String detail) {
        errors.add(new FieldError(FieldError.Type.FORBIDDEN, path, null, detail));
    }

    void tooMany(String path, int actual, int max) {
        errors.add(new FieldError(FieldError.Type.TOO_MANY, path, NODES.numberNode(actual),
                "must have at most " + max + " items"));
    }

    void immutable(String path, JsonNode value) {
        invalid(path, value, "field is immutable");
    }

    /** A required string field in one of the name formats. */
    void name(JsonNode parent, String field, String path, Function<String, List<String>> format) {
        JsonNode value = parent == null ? null : parent.get(field);
        if (value == null || value.isNull() || value.asString().isEmpty()) {
            required(path, "");
            return;
        }
        format(value.asString(), path, format);
    }

    void format(String value, String path, Function<String, List<String>> format) {
        for (String problem : format.apply(value)) {
            invalid(path, NODES.stringNode(value), problem);
        }
    }

    /** {@code PodGroupSchedulingPolicy}: exactly one of basic and gang; a gang's minCount is positive. */
    void schedulingPolicy(JsonNode policy, String path) {
        boolean basic = present(policy, "basic");
        boolean gang = present(policy, "gang");
        if (!basic && !gang) {
            invalid(path, NODES.stringNode(""), "must specify one of: `basic`, `gang`");
        } else if (basic && gang) {
            invalid(path, NODES.stringNode("{basic, gang}"), "must specify exactly one of: `basic`, `gang`");
        }
        if (gang) {
            JsonNode minCount = policy.get("gang").get("minCount");
            if (minCount == null || minCount.isNull()) {
                required(path + ".gang.minCount", "");
            } else if (minCount.asLong() < 1) {
                invalid(path + ".gang.minCount", minCount, "must be greater than or equal to 1");
            }
        }
    }

    /**
     * {@code []PodGroupResourceClaim}: at most four, unique DNS-label names, each naming exactly one of a claim or a
     * template.
     */
    void resourceClaims(JsonNode claims, String path) {
        if (claims == null || !claims.isArray()) {
            return;
        }
        if (claims.size() > MAX_RESOURCE_CLAIMS) {
            tooMany(path, claims.size(), MAX_RESOURCE_CLAIMS);
        }
        Set<String> names = new HashSet<>();
        for (int i = 0; i < claims.size(); i++) {
            JsonNode claim = claims.get(i);
            String at = path + "[" + i + "]";
            name(claim, "name", at + ".name", Names::dnsLabel);
            String name = text(claim, "name");
            if (!name.isEmpty() && !names.add(name)) {
                errors.add(new FieldError(FieldError.Type.DUPLICATE, at + ".name", NODES.stringNode(name), ""));
            }
            boolean byName = present(claim, "resourceClaimName");
            boolean byTemplate = present(claim, "resourceClaimTemplateName");
            if (!byName && !byTemplate) {
                invalid(at, NODES.stringNode(""),
                        "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`");
            } else if (byName && byTemplate) {
                invalid(at, NODES.stringNode("{resourceClaimName, resourceClaimTemplateName}"),
                        "must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`");
            }
            if (byName) {
                format(text(claim, "resourceClaimName"), at + ".resourceClaimName", Names::dnsSubdomain);
            }
            if (byTemplate) {
                format(text(claim, "resourceClaimTemplateName"), at + ".resourceClaimTemplateName",
                        Names::dnsSubdomain);
            }
        }
    }

    static boolean present(JsonNode parent, String field) {
        return parent != null && parent.has(field) && !parent.get(field).isNull();
    }

    static String text(JsonNode parent, String field) {
        JsonNode value = parent == null ? null : parent.get(field);
        return value == null || value.isNull() ? "" : value.asString();
    }

    /** The node without the mutable {@code gang.minCount}, for immutability checks of a policy holder. */
    static JsonNode withoutMinCount(JsonNode holder) {
        if (holder == null || !holder.isObject()) {
            return holder;
        }
        ObjectNode copy = ((ObjectNode) holder).deepCopy();
        JsonNode gang = copy.at("/schedulingPolicy/gang");
        if (gang.isObject()) {
            ((ObjectNode) gang).remove("minCount");
        }
        return copy;
    }
}
