package io.kdra.apiserver.api;

import io.kdra.apiserver.api.ResourceType.StatusOnCreate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/** The kinds the API server serves, with the URL names, short names and subresources kube-apiserver gives them. */
public final class BuiltinResources {

    public static final String RESOURCE_GROUP = "resource.k8s.io";
    public static final String SCHEDULING_GROUP = "scheduling.k8s.io";

    private static final String DEVICE_TAINT_RULE = "DeviceTaintRule";
    private static final List<String> DEVICE_VERSIONS = List.of("v1beta1", "v1beta2", "v1");
    /** v1alpha3 and v1beta2 have the same shape; kube-apiserver 1.36 serves no v1 DeviceTaintRule. */
    private static final List<String> TAINT_RULE_VERSIONS = List.of("v1alpha3", "v1beta2", "v1");

    private BuiltinResources() {}

    public static List<ResourceType> all() {
        List<ResourceType> types = new ArrayList<>();
        types.add(core("Namespace", "namespaces", false, List.of("ns"), Set.of("status", "finalize"), StatusOnCreate.RESET));
        types.add(core("Node", "nodes", false, List.of("no"), Set.of("status"), StatusOnCreate.KEEP));
        types.add(new ResourceType("", List.of("v1"), "v1", "Pod", "pods", true, List.of("po"), List.of("all"),
                Set.of("status", "binding", "eviction", "log", "exec", "portforward", "resize"), StatusOnCreate.RESET,
                null));
        ResourceType coreEvents = core("Event", "events", true, List.of("ev"), Set.of(), StatusOnCreate.KEEP);
        types.add(coreEvents);
        types.add(new ResourceType("", List.of("v1"), "v1", "Service", "services", true, List.of("svc"), List.of("all"),
                Set.of("status"), StatusOnCreate.RESET, null));
        types.add(core("ServiceAccount", "serviceaccounts", true, List.of("sa"), Set.of(), StatusOnCreate.KEEP));
        types.add(core("ConfigMap", "configmaps", true, List.of("cm"), Set.of(), StatusOnCreate.KEEP));
        types.add(core("Secret", "secrets", true, List.of(), Set.of(), StatusOnCreate.KEEP));
        types.add(core("ResourceQuota", "resourcequotas", true, List.of("quota"), Set.of("status"), StatusOnCreate.RESET));
        types.add(new ResourceType("apps", List.of("v1"), "v1", "DaemonSet", "daemonsets", true, List.of("ds"),
                List.of("all"), Set.of("status"), StatusOnCreate.RESET, null));
        types.add(new ResourceType("apps", List.of("v1"), "v1", "ReplicaSet", "replicasets", true, List.of("rs"),
                List.of("all"), Set.of("status", "scale"), StatusOnCreate.RESET, null));
        types.add(new ResourceType("apps", List.of("v1"), "v1", "Deployment", "deployments", true, List.of("deploy"),
                List.of("all"), Set.of("status", "scale"), StatusOnCreate.RESET, null));
        types.add(new ResourceType("batch", List.of("v1"), "v1", "Job", "jobs", true, List.of(), List.of("all"),
                Set.of("status"), StatusOnCreate.RESET, null));
        types.add(simple("coordination.k8s.io", "Lease", "leases", true));
        // one resource in two shapes, as in kube-apiserver: an event written through either group is read through both
        types.add(new ResourceType("events.k8s.io", List.of("v1"), "v1", "Event", "events", true, List.of("ev"),
                List.of(), Set.of(), StatusOnCreate.KEEP, coreEvents));
        types.add(simple("rbac.authorization.k8s.io", "Role", "roles", true));
        types.add(simple("rbac.authorization.k8s.io", "RoleBinding", "rolebindings", true));
        types.add(simple("rbac.authorization.k8s.io", "ClusterRole", "clusterroles", false));
        types.add(simple("rbac.authorization.k8s.io", "ClusterRoleBinding", "clusterrolebindings", false));
        types.add(new ResourceType("admissionregistration.k8s.io", List.of("v1"), "v1", "ValidatingAdmissionPolicy",
                "validatingadmissionpolicies", false, List.of(), List.of("api-extensions"), Set.of("status"),
                StatusOnCreate.RESET, null));
        types.add(new ResourceType("admissionregistration.k8s.io", List.of("v1"), "v1",
                "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", false, List.of(),
                List.of("api-extensions"), Set.of(), StatusOnCreate.KEEP, null));
        types.add(dra("DeviceClass", "deviceclasses", false, Set.of()));
        types.add(dra("ResourceClaim", "resourceclaims", true, Set.of("status")));
        types.add(dra("ResourceClaimTemplate", "resourceclaimtemplates", true, Set.of()));
        types.add(dra("ResourceSlice", "resourceslices", false, Set.of()));
        types.add(dra("DeviceTaintRule", "devicetaintrules", false, Set.of("status")));
        // alpha in 1.36 and 1.37, served only as v1alpha3, and stored so
        types.add(new ResourceType(RESOURCE_GROUP, List.of("v1alpha3"), "v1alpha3", "ResourcePoolStatusRequest",
                "resourcepoolstatusrequests", false, List.of(), List.of(), Set.of("status"), StatusOnCreate.RESET,
                null));
        // the Workload API as 1.37 serves it (GenericWorkload beta); withheld while the gate is off
        types.add(new ResourceType(SCHEDULING_GROUP, List.of("v1beta1"), "v1beta1", "Workload", "workloads", true,
                List.of(), List.of(), Set.of(), StatusOnCreate.KEEP, null));
        types.add(new ResourceType(SCHEDULING_GROUP, List.of("v1beta1"), "v1beta1", "PodGroup", "podgroups", true,
                List.of(), List.of(), Set.of("status"), StatusOnCreate.RESET, null));
        return types;
    }

    private static ResourceType core(String kind, String plural, boolean namespaced, List<String> shortNames,
            Set<String> subresources, StatusOnCreate statusOnCreate) {
        return new ResourceType("", List.of("v1"), "v1", kind, plural, namespaced, shortNames, List.of(), subresources,
                statusOnCreate, null);
    }

    private static ResourceType simple(String group, String kind, String plural, boolean namespaced) {
        return new ResourceType(group, List.of("v1"), "v1", kind, plural, namespaced, List.of(), List.of(), Set.of(),
                StatusOnCreate.KEEP, null);
    }

    /** @return the storage version of a resource.k8s.io kind: the most stable one served */
    public static String draStorageVersion(String kind) {
        return "v1";
    }

    /** @return the served versions of a resource.k8s.io kind, oldest first */
    public static List<String> draServedVersions(String kind) {
        return kind.equals(DEVICE_TAINT_RULE) ? TAINT_RULE_VERSIONS : DEVICE_VERSIONS;
    }

    private static ResourceType dra(String kind, String plural, boolean namespaced, Set<String> subresources) {
        List<String> preferredFirst = new ArrayList<>(draServedVersions(kind));
        Collections.reverse(preferredFirst);
        return new ResourceType(RESOURCE_GROUP, preferredFirst, draStorageVersion(kind), kind, plural,
                namespaced, List.of(), List.of(), subresources,
                subresources.contains("status") ? StatusOnCreate.RESET : StatusOnCreate.KEEP, null);
    }
}
