package io.kdra.apiserver.auth;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.json.Json;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The reviews a user creates to ask about themselves, as {@code kubectl auth can-i} and {@code kubectl auth whoami}
 * do: SelfSubjectAccessReview and SelfSubjectRulesReview (authorization.k8s.io/v1), SelfSubjectReview
 * (authentication.k8s.io/v1). Nothing is stored; the answer is the review sent with its status filled in. The server
 * authorizes no request but the writes of a claim's device status ({@code resourceclaims/driver}, which the RBAC
 * authorizer decides), so a review answers what the server does: that subresource is asked of the authorizer,
 * everything else is allowed.
 */
public final class AccessReviews {

    /** A review resource: create only, cluster-scoped. */
    public record Resource(String group, String version, String plural, String kind) {

        public String apiVersion() {
            return group + "/" + version;
        }
    }

    private static final String AUTHORIZATION = "authorization.k8s.io";
    private static final String AUTHENTICATION = "authentication.k8s.io";
    public static final List<Resource> RESOURCES = List.of(
            new Resource(AUTHORIZATION, "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview"),
            new Resource(AUTHORIZATION, "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview"),
            new Resource(AUTHENTICATION, "v1", "selfsubjectreviews", "SelfSubjectReview"));

    /** Why a review allows what the server does not check; kube-apiserver's reason names the RBAC binding. */
    static final String ALLOWED_REASON = "kdra's API server allows every request of an authenticated user";

    private final Authorizer authorizer;

    public AccessReviews(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    public static Optional<Resource> find(String group, String version, String plural) {
        return RESOURCES.stream().filter(resource -> resource.group().equals(group)
                && resource.version().equals(version) && resource.plural().equals(plural)).findFirst();
    }

    /**
     * @param review the object the user sent
     * @return the review with its status
     * @throws ApiException 400 when the object is not of the resource's kind, 422 when its spec is invalid
     */
    public ObjectNode answer(Resource resource, JsonNode review, UserInfo user) {
        if (!(review instanceof ObjectNode sent)) {
            throw ApiException.badRequest("the object provided is unrecognized (must be of type " + resource.kind()
                    + ")");
        }
        String kind = Json.text(sent, "kind");
        String apiVersion = Json.text(sent, "apiVersion");
        if ((kind != null && !kind.equals(resource.kind()))
                || (apiVersion != null && !apiVersion.equals(resource.apiVersion()))) {
            throw ApiException.badRequest(String.format("the API version in the data (%s) does not match the "
                    + "expected API version (%s) or kind (%s)", apiVersion, resource.apiVersion(), resource.kind()));
        }
        ObjectNode answer = sent.deepCopy();
        answer.put("kind", resource.kind());
        answer.put("apiVersion", resource.apiVersion());
        ObjectNode metadata = answer.has("metadata") && answer.get("metadata").isObject()
                ? (ObjectNode) answer.get("metadata") : answer.putObject("metadata");
        metadata.putNull("creationTimestamp");
        ObjectNode status = switch (resource.kind()) {
            case "SelfSubjectAccessReview" -> accessStatus(sent.path("spec"), user);
            case "SelfSubjectRulesReview" -> rulesStatus();
            default -> identityStatus(user);
        };
        answer.set("status", status);
        return answer;
    }

    private ObjectNode accessStatus(JsonNode spec, UserInfo user) {
        JsonNode resourceAttributes = spec.path("resourceAttributes");
        JsonNode nonResourceAttributes = spec.path("nonResourceAttributes");
        if (resourceAttributes.isObject() == nonResourceAttributes.isObject()) {
            throw ApiException.of(422, "Invalid", "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
                    + "spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or "
                    + "resourceAttributes must be specified", null);
        }
        ObjectNode status = Json.object();
        if (resourceAttributes.isObject() && resourceAttributes.path("resource").asString("").equals("resourceclaims")
                && resourceAttributes.path("group").asString("").equals("resource.k8s.io")
                && resourceAttributes.path("subresource").asString("").equals("driver")) {
            Authorizer.Decision decision = authorizer.authorize(new Authorizer.Attributes(user,
                    resourceAttributes.path("verb").asString(""), "resource.k8s.io", "resourceclaims", "driver",
                    resourceAttributes.path("namespace").asString(""), resourceAttributes.path("name").asString("")));
            status.put("allowed", decision.allowed());
            if (!decision.reason().isEmpty()) {
                status.put("reason", decision.reason());
            }
            return status;
        }
        status.put("allowed", true);
        status.put("reason", ALLOWED_REASON);
        return status;
    }

    private static ObjectNode rulesStatus() {
        ObjectNode status = Json.object();
        ObjectNode resourceRule = status.putArray("resourceRules").addObject();
        resourceRule.putArray("verbs").add("*");
        resourceRule.putArray("apiGroups").add("*");
        resourceRule.putArray("resources").add("*");
        ObjectNode nonResourceRule = status.putArray("nonResourceRules").addObject();
        nonResourceRule.putArray("verbs").add("*");
        nonResourceRule.putArray("nonResourceURLs").add("*");
        status.put("incomplete", false);
        return status;
    }

    private static ObjectNode identityStatus(UserInfo user) {
        ObjectNode userInfo = Json.object();
        userInfo.put("username", user.name());
        if (!user.uid().isEmpty()) {
            userInfo.put("uid", user.uid());
        }
        ArrayNode groups = userInfo.putArray("groups");
        user.groups().forEach(groups::add);
        if (!user.extra().isEmpty()) {
            ObjectNode extra = userInfo.putObject("extra");
            for (Map.Entry<String, List<String>> entry : user.extra().entrySet()) {
                ArrayNode values = extra.putArray(entry.getKey());
                entry.getValue().forEach(values::add);
            }
        }
        ObjectNode status = Json.object();
        status.set("userInfo", userInfo);
        return status;
    }
}
