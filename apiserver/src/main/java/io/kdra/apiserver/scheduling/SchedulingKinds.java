package io.kdra.apiserver.scheduling;

import io.kdra.apiserver.api.BuiltinResources;
import io.kdra.apiserver.api.KindRegistry;
import io.kdra.kube.FeatureGates;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code scheduling.k8s.io} kinds of the Workload API (KEP-4671) as kube-apiserver serves them in
 * {@code v1beta1}: Workload and PodGroup, served only while the GenericWorkload gate is on (while it is off, a
 * pod's {@code spec.schedulingGroup} is dropped too). Their {@code resourceClaims} (KEP-5729, claims shared by a
 * PodGroup's pods) are dropped on writes while DRAWorkloadResourceClaims is off.
 */
public final class SchedulingKinds {

    public static final String GROUP = BuiltinResources.SCHEDULING_GROUP;
    public static final String WORKLOAD = "Workload";
    public static final String POD_GROUP = "PodGroup";

    private SchedulingKinds() {}

    /** Registers validation and field dropping, or withholds both kinds when GenericWorkload is off. */
    public static void register(KindRegistry.Builder kinds, FeatureGates gates) {
        if (!gates.enabled(FeatureGates.GENERIC_WORKLOAD)) {
            kinds.unserved(GROUP, WORKLOAD).unserved(GROUP, POD_GROUP);
            kinds.disabledFields("", "Pod", SchedulingKinds::dropSchedulingGroup);
            return;
        }
        kinds.validator(GROUP, WORKLOAD, new WorkloadValidator());
        kinds.validator(GROUP, POD_GROUP, new PodGroupValidator());
        if (!gates.enabled(FeatureGates.DRA_WORKLOAD_RESOURCE_CLAIMS)) {
            kinds.disabledFields(GROUP, WORKLOAD, SchedulingKinds::dropWorkloadClaims);
            kinds.disabledFields(GROUP, POD_GROUP, SchedulingKinds::dropPodGroupClaims);
        }
    }

    /** Upstream's {@code dropDisabledPodFields} for the pod's membership in a PodGroup. */
    private static void dropSchedulingGroup(ObjectNode pod, ObjectNode old) {
        if (old != null && old.at("/spec/schedulingGroup").isObject()) {
            return;
        }
        if (pod.get("spec") instanceof ObjectNode spec) {
            spec.remove("schedulingGroup");
        }
    }

    private static void dropWorkloadClaims(ObjectNode workload, ObjectNode old) {
        if (old != null && usesClaims(old.at("/spec/podGroupTemplates"))) {
            return;
        }
        for (JsonNode template : workload.at("/spec/podGroupTemplates")) {
            if (template instanceof ObjectNode object) {
                object.remove("resourceClaims");
            }
        }
    }

    private static void dropPodGroupClaims(ObjectNode podGroup, ObjectNode old) {
        if (old != null && (old.at("/spec/resourceClaims").size() > 0
                || old.at("/status/resourceClaimStatuses").size() > 0)) {
            return;
        }
        if (podGroup.get("spec") instanceof ObjectNode spec) {
            spec.remove("resourceClaims");
        }
        if (podGroup.get("status") instanceof ObjectNode status) {
            status.remove("resourceClaimStatuses");
        }
    }

    private static boolean usesClaims(JsonNode templates) {
        for (JsonNode template : templates) {
            if (template.path("resourceClaims").size() > 0) {
                return true;
            }
        }
        return false;
    }
}
