package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Resources;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group T: two drivers on the same nodes, the second named with suffix {@code -other}, serving the DRA gRPC
 * API versions of each context; one pod uses two claims of each.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] with multiple drivers")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class KubeletMultipleDriversSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 4);

    @Test
    @DisplayName("using only drapbv1beta1 work")
    void usingOnlyDrapbv1beta1() throws Exception {
        work(true, false);
    }

    @Test
    @DisplayName("using only drapbv1 [KubeletMinVersion:1.34] work")
    @Tag("KubeletMinVersion:1.34")
    void usingOnlyDrapbv1() throws Exception {
        work(false, true);
    }

    @Test
    @DisplayName("using drapbv1beta1 and drapbv1 work")
    void usingDrapbv1beta1AndDrapbv1() throws Exception {
        work(true, true);
    }

    private void work(boolean nodeV1beta1, boolean nodeV1) throws Exception {
        Driver driver1 = Driver.instance(f).nodeV1beta1(nodeV1beta1).nodeV1(nodeV1);
        driver1.run(nodes, Resources.driverResourcesNow(nodes, 2));
        Builder b1 = Builder.now(f, driver1);
        Driver driver2 = Driver.instance(f).nameSuffix("-other").nodeV1beta1(nodeV1beta1).nodeV1(nodeV1);
        driver2.run(nodes, Resources.driverResourcesNow(nodes, 2));
        Builder b2 = Builder.now(f, driver2);

        ResourceClaim claim1 = b1.externalClaim();
        ResourceClaim claim1b = b1.externalClaim();
        ResourceClaim claim2 = b2.externalClaim();
        ResourceClaim claim2b = b2.externalClaim();
        Pod pod = b1.podExternal();
        List<ResourceClaim> more = List.of(claim1b, claim2, claim2b);
        List<io.fabric8.kubernetes.api.model.PodResourceClaim> podClaims =
                new ArrayList<>(pod.getSpec().getResourceClaims());
        for (int i = 0; i < more.size(); i++) {
            podClaims.add(new PodResourceClaimBuilder().withName("claim" + (i + 1))
                    .withResourceClaimName(more.get(i).getMetadata().getName()).build());
        }
        pod.getSpec().setResourceClaims(podClaims);
        b1.create(claim1, claim1b, claim2, claim2b, pod);
        b1.testPod(pod);
    }
}
