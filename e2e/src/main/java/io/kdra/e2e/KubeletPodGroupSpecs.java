package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.Workload;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Resources;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group AA: claims of a Workload's PodGroup, allocated for the pods of the group. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] [FeatureGate:GenericWorkload] "
        + "[FeatureGate:DRAWorkloadResourceClaims] [KubeletMinVersion:1.36]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:GenericWorkload")
@Tag("FeatureGate:DRAWorkloadResourceClaims")
@Tag("KubeletMinVersion:1.36")
class KubeletPodGroupSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.driverResources(1));
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("allocates devices for PodGroups [Beta] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation] "
            + "[FeatureGate:GenericWorkload]")
    @Tag("Beta")
    @Tag("Feature:OffByDefault")
    @Tag("FeatureGate:DynamicResourceAllocation")
    void allocatesDevicesForPodGroups() throws Exception {
        ResourceClaim claim = b.externalClaim();
        Workload workload = b.workloadExternal(claim.getMetadata().getName());
        PodGroup podGroup = b.podGroup(workload, workload.getSpec().getPodGroupTemplates().get(0));
        Pod pod = b.groupedPodWithClaims(podGroup);
        b.create(claim, workload, podGroup, pod);
        b.testPod(pod);
    }

    @Test
    @DisplayName("generates claims from templates for PodGroups [Beta] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation] [FeatureGate:GenericWorkload]")
    @Tag("Beta")
    @Tag("Feature:OffByDefault")
    @Tag("FeatureGate:DynamicResourceAllocation")
    void generatesClaimsFromTemplatesForPodGroups() throws Exception {
        Builder.WorkloadWithTemplate inline = b.workloadInline();
        Workload workload = inline.workload();
        PodGroup podGroup = b.podGroup(workload, workload.getSpec().getPodGroupTemplates().get(0));
        Pod pod = b.groupedPodWithClaims(podGroup);
        b.create(workload, podGroup, inline.template(), pod);
        b.testPod(pod);
    }
}
