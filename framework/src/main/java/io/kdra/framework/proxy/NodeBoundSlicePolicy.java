package io.kdra.framework.proxy;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.framework.DriverInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upstream's ValidatingAdmissionPolicy for the kubelet plugin's service account (from {@code plugin-permissions.yaml},
 * named per driver instance as upstream renames it): a plugin may write ResourceSlices of the node its pod runs on
 * only, which the API server checks with the node name that the plugin's token (here: impersonation) carries.
 * Created only where the API server serves the kind; where it does not, the spec runs without it.
 */
final class NodeBoundSlicePolicy {

    private static final Logger LOG = LoggerFactory.getLogger(NodeBoundSlicePolicy.class);
    private static final String NODE_NAME_EXTRA = "authentication.kubernetes.io/node-name";

    private final KubernetesClient admin;
    private final DriverInstance instance;
    private final String name;
    private boolean created;

    NodeBoundSlicePolicy(KubernetesClient admin, DriverInstance instance) {
        this.admin = admin;
        this.instance = instance;
        this.name = "resourceslices-policy-dra-kubelet-plugin-" + instance.instanceName();
    }

    /** Creates the policy and its binding, or logs why not. */
    void create() {
        if (!admin.supports(ValidatingAdmissionPolicy.class)
                || !admin.supports(ValidatingAdmissionPolicyBinding.class)) {
            LOG.info("not creating ValidatingAdmissionPolicy {}: the API server does not serve "
                    + "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and its binding, so the plugin of "
                    + "{} is not limited to its node's ResourceSlices by policy", name, instance.instanceName());
            return;
        }
        String user = "system:serviceaccount:" + instance.namespace() + ":" + instance.serviceAccount();
        admin.resource(new ValidatingAdmissionPolicyBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withFailurePolicy("Fail")
                .withNewMatchConstraints().addNewResourceRule().withApiGroups("resource.k8s.io")
                .withApiVersions("*").withOperations("CREATE", "UPDATE", "DELETE").withResources("resourceslices")
                .endResourceRule().endMatchConstraints()
                .addNewMatchCondition().withName("isRestrictedUser")
                .withExpression("request.userInfo.username == \"" + user + "\"").endMatchCondition()
                .addNewVariable().withName("userNodeName")
                .withExpression("request.userInfo.extra[?'" + NODE_NAME_EXTRA + "'][0].orValue('')").endVariable()
                .addNewVariable().withName("objectNodeName")
                .withExpression("(request.operation == \"DELETE\" ? oldObject : object).spec.?nodeName.orValue(\"\")")
                .endVariable()
                .addNewValidation().withExpression("variables.userNodeName != \"\"")
                .withMessage("no node association found for user, this user must run in a pod on a node and "
                        + "ServiceAccountTokenPodNodeInfo must be enabled").endValidation()
                .addNewValidation().withExpression("variables.userNodeName == variables.objectNodeName")
                .withMessageExpression("\"this user running on node '\"+variables.userNodeName+\"' may not modify \" + "
                        + "(variables.objectNodeName == \"\" ?\"cluster resourceslices\" : \"resourceslices on node '\""
                        + "+variables.objectNodeName+\"'\")").endValidation()
                .endSpec().build()).create();
        created = true;
        admin.resource(new ValidatingAdmissionPolicyBindingBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withPolicyName(name).withValidationActions("Deny").endSpec().build()).create();
        LOG.debug("created ValidatingAdmissionPolicy {} for {}", name, user);
    }

    void delete() {
        if (created) {
            admin.resources(ValidatingAdmissionPolicyBinding.class).withName(name).delete();
            admin.resources(ValidatingAdmissionPolicy.class).withName(name).delete();
        }
    }
}
