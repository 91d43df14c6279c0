package io.kdra.apiserver.admission;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.json.Json;
import tools.jackson.databind.node.ObjectNode;

/**
 * ResourceSlice writes by an identity bound to a node (a kubelet plugin's service account token carries the node
 * name) are limited to that node's slices. This is the rule the upstream DRA driver deploys as the
 * ValidatingAdmissionPolicy {@code resourceslices-policy-dra-kubelet-plugin} (and a binding of the same name), with
 * its messages and the answer kube-apiserver gives for its denials.
 */
public final class NodeBoundSliceAdmission implements AdmissionPlugin {

    private static final String POLICY = "resourceslices-policy-dra-kubelet-plugin";

    @Override
    public void admit(AdmissionRequest request) {
        if (!request.type().groupResource().equals("resourceslices.resource.k8s.io")) {
            return;
        }
        String userNode = request.user().boundNodeName();
        if (userNode == null) {
            return;
        }
        ObjectNode object = request.operation() == AdmissionRequest.Operation.DELETE ? request.oldObject()
                : request.object();
        String objectNode = Json.text(object, "spec", "nodeName");
        if (objectNode == null) {
            objectNode = "";
        }
        if (!objectNode.equals(userNode)) {
            throw ApiException.deniedByPolicy(request.type(), request.name(), POLICY, POLICY, String.format(
                    "this user running on node '%s' may not modify %s", userNode,
                    objectNode.isEmpty() ? "cluster resourceslices" : "resourceslices on node '" + objectNode + "'"));
        }
    }
}
