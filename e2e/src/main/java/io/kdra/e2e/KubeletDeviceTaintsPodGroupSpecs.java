package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTolerationBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.Workload;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group AC: group M's device taint specs (every device tainted NoSchedule) for PodGroup claims. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] [FeatureGate:DRADeviceTaints] "
        + "[FeatureGate:DRAWorkloadResourceClaims] [FeatureGate:GenericWorkload] [KubeletMinVersion:1.36]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DRADeviceTaints")
@Tag("FeatureGate:DRAWorkloadResourceClaims")
@Tag("FeatureGate:GenericWorkload")
@Tag("KubeletMinVersion:1.36")
@Tag("Beta")
@Tag("Feature:OffByDefault")
@Tag("FeatureGate:DynamicResourceAllocation")
class KubeletDeviceTaintsPodGroupSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.networkResources(10, false),
            Resources.taintAllDevices(new DeviceTaintBuilder().withKey("example.com/taint").withValue("tainted")
                    .withEffect("NoSchedule").build()));
    final Builder b = Builder.create(f, driver);

    /** A Workload with a claim template, its PodGroup and a pod of the group; the template is not created yet. */
    private record Group(Builder.WorkloadWithTemplate inline, PodGroup podGroup, Pod pod) {
        void create(Builder b) {
            b.create(inline.workload(), podGroup, inline.template(), pod);
        }
    }

    private Group group() {
        Builder.WorkloadWithTemplate inline = b.workloadInline();
        Workload workload = inline.workload();
        PodGroup podGroup = b.podGroup(workload, workload.getSpec().getPodGroupTemplates().get(0));
        return new Group(inline, podGroup, b.groupedPodWithClaims(podGroup));
    }

    @Test
    @DisplayName("NoSchedule keeps pod with PodGroup claim pending [Beta] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation] [FeatureGate:GenericWorkload]")
    void noScheduleKeepsPodWithPodGroupClaimPending() {
        Group group = group();
        group.create(b);
        Pods.waitForUnschedulable(f, group.pod());
    }

    @Test
    @DisplayName("NoSchedule can be tolerated for PodGroup claims [Beta] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation] [FeatureGate:GenericWorkload]")
    void noScheduleCanBeToleratedForPodGroupClaims() throws Exception {
        Group group = group();
        tolerateNoSchedule(group);
        group.create(b);
        b.testPod(group.pod());
    }

    @Test
    @DisplayName("DeviceTaintRule evicts pod with PodGroup claim [FeatureGate:DRADeviceTaintRules] [Beta] "
            + "[Feature:OffByDefault] [FeatureGate:DRADeviceTaints] [FeatureGate:DynamicResourceAllocation] "
            + "[FeatureGate:GenericWorkload]")
    @Tag("FeatureGate:DRADeviceTaintRules")
    void deviceTaintRuleEvictsPodWithPodGroupClaim() throws Exception {
        Group group = group();
        tolerateNoSchedule(group);
        // the finalizer keeps the evicted (deleted) pod readable for the status check
        group.pod().getMetadata().setFinalizers(List.of(KubeletDeviceTaintsSpecs.EVICTION_FINALIZER));
        group.create(b);
        b.testPod(group.pod());
        f.cleanup("remove the finalizer of " + group.pod().getMetadata().getName(),
                () -> KubeletDeviceTaintsSpecs.removeFinalizers(f, group.pod()));

        f.by("Evicting pod...");
        DeviceTaintRule rule = b.create(KubeletDeviceTaintsSpecs.evictionRule(f, driver));
        KubeletDeviceTaintsSpecs.assertTimeAddedDefaulted(rule);
        KubeletDeviceTaintsSpecs.waitForEviction(f, group.pod());
    }

    /** Tolerate every NoSchedule taint (no key) in the group's claim template, as upstream's specs do. */
    private static void tolerateNoSchedule(Group group) {
        group.inline().template().getSpec().getSpec().getDevices().getRequests().get(0).getExactly()
                .setTolerations(List.of(new DeviceTolerationBuilder().withEffect("NoSchedule").withOperator("Exists")
                        .build()));
    }
}
