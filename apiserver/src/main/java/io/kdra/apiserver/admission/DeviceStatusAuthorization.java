package io.kdra.apiserver.admission;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.api.InvalidObject;
import io.kdra.apiserver.auth.Authorizer;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;

/**
 * Who may write {@code status.devices} of a ResourceClaim (DRAResourceClaimGranularStatusAuthorization): for every
 * driver whose entries a status write adds, changes or removes, the writer needs a verb on the synthetic subresource
 * {@code resourceclaims/driver} named after the driver. A service account bound to the node the claim is allocated on
 * (its token carries that node's name, and the allocation selects exactly that node) may use
 * {@code associated-node:<verb>} or {@code arbitrary-node:<verb>}; anyone else needs {@code arbitrary-node:<verb>}.
 * A denial is a Forbidden field error on {@code status.devices}, so the write fails as 422 Invalid, with the words
 * kube-apiserver uses.
 */
public final class DeviceStatusAuthorization implements AdmissionPlugin {

    private static final String ASSOCIATED_NODE = "associated-node:";
    private static final String ARBITRARY_NODE = "arbitrary-node:";
    private static final String SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

    private final Authorizer authorizer;

    public DeviceStatusAuthorization(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    @Override
    public void admit(AdmissionRequest request) {
        if (request.operation() != AdmissionRequest.Operation.UPDATE || !request.subresource().equals("status")
                || !request.type().groupResource().equals("resourceclaims.resource.k8s.io")) {
            return;
        }
        Set<String> drivers = changedDrivers(Json.at(request.object(), "status", "devices"),
                Json.at(request.oldObject(), "status", "devices"));
        if (drivers.isEmpty()) {
            return;
        }
        // the write's verb: the server hands admission no verb, and an update and a patch arrive alike
        String verb = "update";
        List<String> verbs = associated(request.user(), allocatedNode(request.object()))
                ? List.of(ASSOCIATED_NODE + verb, ARBITRARY_NODE + verb) : List.of(ARBITRARY_NODE + verb);
        List<FieldError> errors = new ArrayList<>();
        for (String driver : drivers) {
            String denial = null;
            for (String candidate : verbs) {
                Authorizer.Attributes attributes = new Authorizer.Attributes(request.user(), candidate,
                        "resource.k8s.io", "resourceclaims", "driver", request.namespace(), driver);
                Authorizer.Decision decision = authorizer.authorize(attributes);
                if (decision.allowed()) {
                    denial = null;
                    break;
                }
                if (denial == null) {
                    denial = String.format("resourceclaims.resource.k8s.io \"%s\" is forbidden: %s%s", driver,
                            attributes.denial(), decision.reason().isEmpty() ? "" : ": " + decision.reason());
                }
            }
            if (denial != null) {
                errors.add(new FieldError(FieldError.Type.FORBIDDEN, "status.devices", null, String.format(
                        "changing status.devices requires resource=\"resourceclaims/driver\", verb=\"[%s]\" "
                                + "permission: %s", String.join(" ", verbs), denial)));
            }
        }
        if (!errors.isEmpty()) {
            throw InvalidObject.of(request.type(), request.name(), errors);
        }
    }

    /** The drivers whose entries were added, removed or changed; an entry is keyed by driver, pool, device, share. */
    private static Set<String> changedDrivers(JsonNode devices, JsonNode oldDevices) {
        Map<String, JsonNode> old = new HashMap<>();
        for (JsonNode entry : oldDevices) {
            old.put(key(entry), entry);
        }
        Set<String> drivers = new TreeSet<>();
        for (JsonNode entry : devices) {
            JsonNode previous = old.remove(key(entry));
            if (previous == null || !previous.equals(entry)) {
                drivers.add(entry.path("driver").asString(""));
            }
        }
        old.values().forEach(entry -> drivers.add(entry.path("driver").asString("")));
        return drivers;
    }

    private static String key(JsonNode entry) {
        return String.join("/", entry.path("driver").asString(""), entry.path("pool").asString(""),
                entry.path("device").asString(""), entry.path("shareID").asString(""));
    }

    /** The node of an allocation whose selector is exactly {@code metadata.name In [node]}, else null. */
    private static String allocatedNode(JsonNode claim) {
        JsonNode terms = Json.at(claim, "status", "allocation", "nodeSelector", "nodeSelectorTerms");
        if (terms.size() != 1) {
            return null;
        }
        JsonNode term = terms.get(0);
        JsonNode fields = term.path("matchFields");
        if (!term.path("matchExpressions").isEmpty() || fields.size() != 1) {
            return null;
        }
        JsonNode field = fields.get(0);
        if (!field.path("key").asString("").equals("metadata.name")
                || !field.path("operator").asString("").equals("In") || field.path("values").size() != 1) {
            return null;
        }
        return field.path("values").get(0).asString("");
    }

    private static boolean associated(UserInfo user, String allocatedNode) {
        if (allocatedNode == null || allocatedNode.isEmpty() || !user.name().startsWith(SERVICE_ACCOUNT_PREFIX)) {
            return false;
        }
        List<String> nodes = user.extra().get(UserInfo.NODE_NAME_EXTRA);
        return nodes != null && nodes.size() == 1 && nodes.get(0).equals(allocatedNode);
    }
}
