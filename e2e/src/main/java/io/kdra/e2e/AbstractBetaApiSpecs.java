package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.kdra.framework.Builder;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The specs of upstream's {@code v1beta1Tests} and {@code v1beta2Tests}: claims and templates written in an older
 * {@code resource.k8s.io} version, which the API server converts, on one node with one device and the class parameters
 * {@code {"x":"y"}}. The subclasses are the two groups; they write and read the objects in their version.
 */
abstract class AbstractBetaApiSpecs {

    static final String CLAIM_NAME = "external-multiclaim";

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.driverResources(1));
    // the parameters must be set before the class is created
    final Builder b = Builder.create(f, driver).classParameters("{\"x\":\"y\"}");

    /** A pod with its inline claim's template in this version ({@code Builder.podInlineWithV1beta1} ...). */
    abstract List<HasMetadata> podInlineInThisVersion();

    /**
     * The claim {@value #CLAIM_NAME} in this version: request {@code request-1} with the alternatives
     * {@code sub-request-1} (two devices of the builder's class) and {@code sub-request-2} (one), and the claim
     * parameters for all requests.
     */
    abstract HasMetadata claimWithAlternatives(Map<String, String> parameters);

    /** The requests of the allocation results of claim {@value #CLAIM_NAME}, read in this version; empty until then. */
    abstract Optional<List<String>> allocatedRequests();

    private String[] expectedEnv() {
        List<String> env = new ArrayList<>(List.of("admin_x", "y"));
        env.addAll(b.parametersEnv());
        return env.toArray(String[]::new);
    }

    @Test
    @DisplayName("supports simple ResourceClaim")
    void supportsSimpleResourceClaim() throws Exception {
        List<HasMetadata> podAndTemplate = podInlineInThisVersion();
        b.create(podAndTemplate.toArray(HasMetadata[]::new));
        b.testPod((Pod) podAndTemplate.get(0), expectedEnv());
    }

    @Test
    @DisplayName("supports requests with alternatives [FeatureGate:DRAPrioritizedList] "
            + "[FeatureGate:DynamicResourceAllocation]")
    @Tag("FeatureGate:DRAPrioritizedList")
    @Tag("FeatureGate:DynamicResourceAllocation")
    void supportsRequestsWithAlternatives() throws Exception {
        HasMetadata claim = claimWithAlternatives(Builder.PARAMETERS);
        Pod pod = b.podExternal(CLAIM_NAME);
        b.create(claim, pod);
        b.testPod(pod, expectedEnv());

        List<String> requests = Waits.until("claim " + CLAIM_NAME + " allocated", f.timeouts().podDelete())
                .until(this::allocatedRequests, Optional::isPresent).orElseThrow();
        // one device only: the first alternative cannot be satisfied
        assertThat(requests).containsExactly("request-1/sub-request-2");
    }
}
