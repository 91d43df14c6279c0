package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Resources;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group F: one node with two devices, so that several claims can be prepared on it. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] on single node with multiple claims "
        + "allocation")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class KubeletMultipleClaimsSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.driverResources(2));
    final Builder b = Builder.create(f, driver);

    // kubernetes#135901 was fixed for kubelet 1.35 and not backported (upstream labels the spec
    // KubeletMinVersion:1.35; the inventory this suite follows names it without that label)
    @Test
    @DisplayName("requests an already allocated and a new claim for a pod")
    void requestsAnAlreadyAllocatedAndANewClaimForAPod() throws Exception {
        ResourceClaim firstClaim = b.externalClaim();
        ResourceClaim secondClaim = b.externalClaim();
        b.create(firstClaim, secondClaim);

        Pod firstPod = b.podExternal(firstClaim.getMetadata().getName());
        b.create(firstPod);
        b.testPod(firstPod);

        // the first claim is prepared already, the second is new
        Pod secondPod = b.podExternal();
        secondPod.getSpec().setResourceClaims(List.of(
                new PodResourceClaimBuilder().withName("first")
                        .withResourceClaimName(firstClaim.getMetadata().getName()).build(),
                new PodResourceClaimBuilder().withName("second")
                        .withResourceClaimName(secondClaim.getMetadata().getName()).build()));
        secondPod.getSpec().getContainers().get(0).getResources().setClaims(List.of(
                new ResourceClaimBuilder().withName("first").build(),
                new ResourceClaimBuilder().withName("second").build()));
        b.create(secondPod);
        b.testPod(secondPod);
    }
}
