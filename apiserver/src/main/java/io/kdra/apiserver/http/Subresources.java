package io.kdra.apiserver.http;

import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.InvalidObject;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.nodeproxy.NodeProxy;
import io.kdra.apiserver.registry.DeleteOptions;
import io.kdra.apiserver.registry.Meta;
import io.kdra.apiserver.registry.Registry;
import io.kdra.apiserver.registry.WriteContext;
import io.vertx.core.http.HttpMethod;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The subresources: status, scale (ReplicaSet), binding, eviction, resize, log, exec and portforward (Pod), finalize
 * (Namespace). Log, exec and portforward are forwarded to the pod's node by the {@link NodeProxy}.
 */
final class Subresources {

    /** The autoscaling/v1 Scale, named in the errors of a scale request. */
    private static final ResourceType SCALE = new ResourceType("autoscaling", List.of("v1"), "v1", "Scale", "scale",
            true, List.of(), List.of(), Set.of(), ResourceType.StatusOnCreate.KEEP, null);

    private final Registry registry;
    private final Clock clock;
    private final NodeProxy nodeProxy;

    Subresources(Registry registry, Clock clock, NodeProxy nodeProxy) {
        this.registry = registry;
        this.clock = clock;
        this.nodeProxy = nodeProxy;
    }

    void handle(Call call, ResourceEndpoint resources) {
        HttpMethod method = call.request().method();
        switch (call.info().subresource()) {
            case "status" -> {
                if (method == HttpMethod.GET) {
                    resources.get(call);
                } else if (method == HttpMethod.PUT) {
                    resources.update(call, true);
                } else if (method == HttpMethod.PATCH) {
                    resources.patch(call, true);
                } else {
                    throw ApiException.methodNotAllowed();
                }
            }
            case "scale" -> scale(call, method);
            case "resize" -> resize(call, method, resources);
            case "binding" -> requirePost(call, method, () -> bind(call));
            case "eviction" -> requirePost(call, method, () -> evict(call));
            case "log" -> {
                if (method != HttpMethod.GET) {
                    throw ApiException.methodNotAllowed();
                }
                nodeProxy.log(call.request(), call.namespace(), call.info().name());
            }
            case "exec" -> exec(call);
            case "portforward" -> portForward(call);
            case "finalize" -> {
                if (method != HttpMethod.PUT) {
                    throw ApiException.methodNotAllowed();
                }
                finalizeNamespace(call, resources);
            }
            default -> throw ApiException.pathNotFound();
        }
    }

    /**
     * A pods/exec request: a WebSocket upgrade is served before its body is read ({@link ApiRequestHandler}), so what
     * arrives here is refused by the proxy's checks, after the pod's, as kube-apiserver orders them.
     */
    void exec(Call call) {
        HttpMethod method = call.request().method();
        if (method != HttpMethod.GET && method != HttpMethod.POST) {
            throw ApiException.methodNotAllowed();
        }
        nodeProxy.exec(call.request(), call.namespace(), call.info().name());
    }

    /** A pods/portforward request that is no WebSocket upgrade: refused by the proxy's checks, as exec. */
    void portForward(Call call) {
        HttpMethod method = call.request().method();
        if (method != HttpMethod.GET && method != HttpMethod.POST) {
            throw ApiException.methodNotAllowed();
        }
        nodeProxy.portForward(call.request(), call.namespace(), call.info().name());
    }

    private static void requirePost(Call call, HttpMethod method, Runnable action) {
        if (method != HttpMethod.POST) {
            throw ApiException.methodNotAllowed();
        }
        action.run();
    }

    /**
     * GET, PUT and PATCH of a ReplicaSet's autoscaling/v1 Scale. As in kube-apiserver, the new Scale is computed from
     * the current object inside the write, its resourceVersion (when set) is the precondition of the update, and only
     * spec.replicas is written back; an absent spec.replicas is Go's zero value.
     */
    private void scale(Call call, HttpMethod method) {
        ResourceType type = call.type();
        String name = call.info().name();
        ObjectNode object;
        List<String> warnings = new ArrayList<>();
        if (method == HttpMethod.GET) {
            object = registry.get(type, call.namespace(), name);
        } else if (method == HttpMethod.PUT || method == HttpMethod.PATCH) {
            UnaryOperator<ObjectNode> newScale = method == HttpMethod.PUT ? replacement(call, warnings)
                    : patched(call, warnings);
            object = registry.patch(type, call.namespace(), name, current -> {
                ObjectNode scale = newScale.apply(scaleOf(current));
                JsonNode replicas = Json.at(scale, "spec", "replicas");
                long count = replicas.isMissingNode() || replicas.isNull() ? 0 : replicas.asLong();
                if (count < 0) {
                    throw InvalidObject.of(SCALE, name, List.of(new FieldError(FieldError.Type.INVALID,
                            "spec.replicas", replicas, "must be greater than or equal to 0")));
                }
                String resourceVersion = Json.text(scale, "metadata", "resourceVersion");
                if (resourceVersion != null && !resourceVersion.isEmpty()) {
                    Json.metadata(current).put("resourceVersion", resourceVersion);
                }
                Json.ensureObject(current, "spec").put("replicas", count);
                return current;
            }, call.writeContext(null), false, false, true);
        } else {
            throw ApiException.methodNotAllowed();
        }
        Responses.warn(call.request().response(), warnings);
        Responses.json(call.request().response(), 200, scaleOf(object));
    }

    /**
     * GET, PUT and PATCH of {@code pods/resize}: the pod, of which a write changes only the resources
     * ({@link Registry#resize}).
     */
    private void resize(Call call, HttpMethod method, ResourceEndpoint resources) {
        if (method == HttpMethod.GET) {
            resources.get(call);
            return;
        }
        if (method != HttpMethod.PUT && method != HttpMethod.PATCH) {
            throw ApiException.methodNotAllowed();
        }
        List<String> warnings = new ArrayList<>();
        UnaryOperator<ObjectNode> proposed = method == HttpMethod.PUT ? replacement(call, "", "Pod", warnings)
                : patched(call, "", "Pod", warnings);
        ObjectNode result = registry.resize(call.type(), call.namespace(), call.info().name(), proposed,
                call.writeContext(null));
        resources.respond(call, 200, result, warnings);
    }

    private static UnaryOperator<ObjectNode> replacement(Call call, List<String> warnings) {
        return replacement(call, "autoscaling", "Scale", warnings);
    }

    private static UnaryOperator<ObjectNode> replacement(Call call, String group, String kind,
            List<String> warnings) {
        JsonNode body = body(call, group, kind, warnings);
        if (!body.isObject()) {
            throw ApiException.badRequest("the body of a " + kind + " must be an object");
        }
        return current -> (ObjectNode) body;
    }

    private static UnaryOperator<ObjectNode> patched(Call call, List<String> warnings) {
        return patched(call, "autoscaling", "Scale", warnings);
    }

    /** The patch in its content type, applied to the current object of the kind (a Scale has no lists to merge). */
    private static UnaryOperator<ObjectNode> patched(Call call, String group, String kind, List<String> warnings) {
        String contentType = MediaTypes.mediaType(call.request().getHeader("Content-Type"));
        if (contentType.equals(PatchEndpoint.APPLY_PATCH)) {
            throw ApiException.unsupportedMediaType(contentType, String.join(", ", PatchEndpoint.JSON_PATCH,
                    PatchEndpoint.MERGE_PATCH, PatchEndpoint.STRATEGIC_MERGE_PATCH));
        }
        UnaryOperator<JsonNode> operation = PatchEndpoint.operation(contentType, call.body());
        BodyDecoder.FieldValidation validation = BodyDecoder.FieldValidation.parse(call.param("fieldValidation"));
        return current -> {
            JsonNode result = operation.apply(current);
            if (!result.isObject()) {
                throw ApiException.badRequest("the patch did not produce an object");
            }
            warnings.clear();
            warnings.addAll(BodyDecoder.decodePatchedFields(group, "v1", kind, (ObjectNode) result, validation));
            return (ObjectNode) result;
        };
    }

    private static ObjectNode scaleOf(ObjectNode object) {
        ObjectNode scale = Json.object();
        scale.put("kind", "Scale");
        scale.put("apiVersion", "autoscaling/v1");
        ObjectNode metadata = scale.putObject("metadata");
        for (String field : List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
            JsonNode value = Json.at(object, "metadata", field);
            if (!value.isMissingNode()) {
                metadata.set(field, value);
            }
        }
        scale.putObject("spec").put("replicas", Json.at(object, "spec", "replicas").asLong(1));
        ObjectNode status = scale.putObject("status");
        status.put("replicas", Json.at(object, "status", "replicas").asLong(0));
        String selector = selectorString(Json.at(object, "spec", "selector"));
        if (!selector.isEmpty()) {
            status.put("selector", selector);
        }
        return scale;
    }

    /**
     * The label selector in the text form kube-apiserver puts into a Scale: one requirement per match label and
     * expression, sorted by key, the values of {@code in} and {@code notin} sorted.
     */
    private static String selectorString(JsonNode selector) {
        record Requirement(String key, String text) {}
        List<Requirement> requirements = new ArrayList<>();
        for (Map.Entry<String, JsonNode> label : selector.path("matchLabels").properties()) {
            requirements.add(new Requirement(label.getKey(), label.getKey() + "=" + label.getValue().asString("")));
        }
        for (JsonNode expression : selector.path("matchExpressions")) {
            String key = expression.path("key").asString("");
            List<String> values = new ArrayList<>();
            expression.path("values").forEach(value -> values.add(value.asString("")));
            Collections.sort(values);
            String text = switch (expression.path("operator").asString("")) {
                case "In" -> key + " in (" + String.join(",", values) + ")";
                case "NotIn" -> key + " notin (" + String.join(",", values) + ")";
                case "Exists" -> key;
                case "DoesNotExist" -> "!" + key;
                default -> null;
            };
            if (text != null) {
                requirements.add(new Requirement(key, text));
            }
        }
        requirements.sort(Comparator.comparing(Requirement::key));
        return String.join(",", requirements.stream().map(Requirement::text).toList());
    }

    private void bind(Call call) {
        List<String> warnings = new ArrayList<>();
        JsonNode binding = body(call, "", "Binding", warnings);
        requireUrlName(call, binding, "Binding");
        String node = Json.text(binding, "target", "name");
        if (node == null || node.isEmpty()) {
            throw ApiException.of(422, "Invalid", String.format(
                    "Binding \"%s\" is invalid: target.name: Required value", call.info().name()), null);
        }
        String name = call.info().name();
        WriteContext context = call.writeContext(null);
        registry.bind(call.type(), call.namespace(), name, pod -> {
            if (Meta.isDeleting(pod)) {
                throw ApiException.conflictOn("pods/binding", name,
                        String.format("pod %s is being deleted, cannot be assigned to a host", name));
            }
            String assigned = Json.text(pod, "spec", "nodeName");
            if (assigned != null && !assigned.isEmpty()) {
                throw ApiException.conflictOn("pods/binding", name,
                        String.format("pod %s is already assigned to node \"%s\"", name, assigned));
            }
            if (!Json.isEmpty(Json.at(pod, "spec", "schedulingGates"))) {
                throw ApiException.conflictOn("pods/binding", name,
                        String.format("pod %s has non-empty .spec.schedulingGates", name));
            }
            Json.ensureObject(pod, "spec").put("nodeName", node);
            setScheduledCondition(pod);
            return pod;
        }, context);
        respondSuccess(call, 201, warnings);
    }

    private void setScheduledCondition(ObjectNode pod) {
        ObjectNode status = Json.ensureObject(pod, "status");
        ArrayNode conditions = status.has("conditions") && status.get("conditions").isArray()
                ? (ArrayNode) status.get("conditions") : status.putArray("conditions");
        for (JsonNode condition : conditions) {
            if ("PodScheduled".equals(Json.text(condition, "type"))) {
                ((ObjectNode) condition).put("status", "True");
                return;
            }
        }
        ObjectNode condition = conditions.addObject();
        condition.put("type", "PodScheduled");
        condition.put("status", "True");
        condition.putNull("lastProbeTime");
        condition.put("lastTransitionTime", Meta.timestamp(clock.instant()));
    }

    private void evict(Call call) {
        List<String> warnings = new ArrayList<>();
        JsonNode eviction = body(call, "policy", "Eviction", warnings);
        requireUrlName(call, eviction, "Eviction");
        JsonNode options = eviction.path("deleteOptions");
        JsonNode grace = options.path("gracePeriodSeconds");
        DeleteOptions deleteOptions = new DeleteOptions(grace.isIntegralNumber() ? grace.asLong() : null,
                Json.text(options, "propagationPolicy"), Json.text(options, "preconditions", "uid"),
                Json.text(options, "preconditions", "resourceVersion"));
        registry.delete(call.type(), call.namespace(), call.info().name(), deleteOptions,
                ResourceEndpoint.deleteContext(call, options));
        respondSuccess(call, 201, warnings);
    }

    private void finalizeNamespace(Call call, ResourceEndpoint resources) {
        JsonNode body = BodyDecoder.parse(call.body());
        JsonNode finalizers = Json.at(body, "spec", "finalizers");
        ObjectNode result = registry.patch(call.type(), null, call.info().name(), namespace -> {
            ObjectNode spec = Json.ensureObject(namespace, "spec");
            if (finalizers.isArray()) {
                spec.set("finalizers", finalizers.deepCopy());
            } else {
                spec.remove("finalizers");
            }
            return namespace;
        }, call.writeContext(null), false, false, true);
        resources.respond(call, 200, result, List.of());
    }

    /** A binding or eviction must name the pod of its URL, as kube-apiserver requires (an empty name does not). */
    private static void requireUrlName(Call call, JsonNode body, String kind) {
        if (!call.info().name().equals(Json.text(body, "metadata", "name"))) {
            throw ApiException.badRequest("name in URL does not match name in " + kind + " object");
        }
    }

    /** The body of a subresource request, decoded as an object of its v1 kind; adds the warnings to send back. */
    private static JsonNode body(Call call, String group, String kind, List<String> warnings) {
        JsonNode body = BodyDecoder.parse(call.body(), ResourceEndpoint.bodyContentType(call));
        if (body.isObject()) {
            warnings.addAll(BodyDecoder.decodeFields(group, "v1", kind, (ObjectNode) body,
                    call.fieldValidation()));
        }
        return body;
    }

    private static void respondSuccess(Call call, int code, List<String> warnings) {
        Responses.warn(call.request().response(), warnings);
        ObjectNode status = Json.object();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Success");
        status.put("code", code);
        Responses.json(call.request().response(), code, status);
    }
}
