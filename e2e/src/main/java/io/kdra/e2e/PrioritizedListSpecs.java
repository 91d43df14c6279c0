package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group H: requests with alternatives (firstAvailable) on one node with two drivers: driver {@code -1} has
 * {@code device-1-1} (version 1.0.0, pcieRoot bar) and {@code device-1-2} (2.0.0, foo), driver {@code -2} has
 * {@code device-2-1} (1.0.0, foo); their classes' parameters name the driver.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] [FeatureGate:DRAPrioritizedList]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DRAPrioritizedList")
// the gate's dependency, which every name of the group ends with
@Tag("FeatureGate:DynamicResourceAllocation")
class PrioritizedListSpecs {

    private static final String CLAIM_NAME = "external-multiclaim";
    private static final String VERSION = "dra.example.com/version";
    private static final String PCIE_ROOT = "dra.example.com/pcieRoot";

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver1 = Driver.create(f, nodes, Resources.driverResources(-1, Map.of(
            "device-1-1", attributes("1.0.0", "bar"),
            "device-1-2", attributes("2.0.0", "foo")))).nameSuffix("-1");
    final Builder b1 = Builder.create(f, driver1).classParameters("{\"driver\":\"1\"}");
    final Driver driver2 = Driver.create(f, nodes, Resources.driverResources(-1, Map.of(
            "device-2-1", attributes("1.0.0", "foo")))).nameSuffix("-2");
    final Builder b2 = Builder.create(f, driver2).classParameters("{\"driver\":\"2\"}");

    private static Map<String, DeviceAttribute> attributes(String version, String pcieRoot) {
        return Map.of(VERSION, new DeviceAttributeBuilder().withString(version).build(),
                PCIE_ROOT, new DeviceAttributeBuilder().withString(pcieRoot).build());
    }

    @Test
    @DisplayName("selects the first subrequest that can be satisfied [FeatureGate:DynamicResourceAllocation]")
    void selectsTheFirstSubrequestThatCanBeSatisfied() throws Exception {
        ResourceClaim claim = claim(
                List.of(firstAvailable("request-1", subRequest("sub-request-1", b1, 3),
                        subRequest("sub-request-2", b1, 2), subRequest("sub-request-3", b1, 1))),
                List.of(),
                List.of(config(driver1, "{\"a\":\"b\"}", "request-1")));
        Pod pod = b1.podExternal(CLAIM_NAME);
        b1.create(claim, pod);
        b1.testPod(pod);

        assertThat(allocatedRequests()).containsExactly("request-1/sub-request-2", "request-1/sub-request-2");
    }

    @Test
    @DisplayName("uses the config for the selected subrequest [FeatureGate:DynamicResourceAllocation]")
    void usesTheConfigForTheSelectedSubrequest() throws Exception {
        ResourceClaim claim = claim(
                List.of(firstAvailable("request-1", subRequest("sub-request-1", b1, 3),
                        subRequest("sub-request-2", b1, 2))),
                List.of(),
                List.of(config(driver1, "{\"a\":\"b\"}", "request-1"),
                        config(driver1, "{\"c\":\"d\"}", "request-1/sub-request-1"),
                        config(driver1, "{\"e\":\"f\"}", "request-1/sub-request-2")));
        Pod pod = b1.podExternal(CLAIM_NAME);
        b1.create(claim, pod);
        b1.testPod(pod, "user_a", "b", "user_e", "f");
    }

    @Test
    @DisplayName("chooses the correct subrequest subject to constraints [FeatureGate:DynamicResourceAllocation]")
    void choosesTheCorrectSubrequestSubjectToConstraints() throws Exception {
        ResourceClaim claim = claim(
                List.of(firstAvailable("request-1", subRequest("sub-request-1", b1, 1),
                                subRequest("sub-request-2", b1, 1)),
                        exactly("request-2", b2)),
                List.of(matchAttribute(VERSION, "request-1", "request-2"),
                        matchAttribute(PCIE_ROOT, "request-1/sub-request-1", "request-2")),
                List.of(config(driver1, "{\"a\":\"b\"}")));
        Pod pod = b1.podExternal(CLAIM_NAME);
        b1.create(claim, pod);
        b1.testPod(pod);

        assertThat(allocatedRequests()).containsExactly("request-1/sub-request-2", "request-2");
    }

    @Test
    @DisplayName("filters config correctly for multiple devices [FeatureGate:DynamicResourceAllocation]")
    void filtersConfigCorrectlyForMultipleDevices() throws Exception {
        ResourceClaim claim = claim(
                List.of(firstAvailable("request-1",
                                subRequest("sub-request-1", b1, 20), // more than there are
                                subRequest("sub-request-2", b1, 1)),
                        exactly("request-2", b2)),
                List.of(),
                List.of(config(driver1, "{\"a\":\"b\"}", "request-1"),
                        config(driver1, "{\"c\":\"d\"}", "request-1/sub-request-1"),
                        config(driver1, "{\"e\":\"f\"}", "request-1/sub-request-2"),
                        config(driver2, "{\"g\":\"h\"}", "request-2")));
        Pod pod = b1.pod();
        ContainerBuilder container = new ContainerBuilder(pod.getSpec().getContainers().get(0));
        pod.getSpec().setContainers(List.of(
                container.withName("with-resource-0").withNewResources().addNewClaim().withName(CLAIM_NAME)
                        .withRequest("request-1").endClaim().endResources().build(),
                container.withName("with-resource-1").withNewResources().addNewClaim().withName(CLAIM_NAME)
                        .withRequest("request-2").endClaim().endResources().build()));
        pod.getSpec().setResourceClaims(List.of(new PodResourceClaimBuilder().withName(CLAIM_NAME)
                .withResourceClaimName(CLAIM_NAME).build()));
        b1.create(claim, pod);
        Pods.waitForRunning(f, pod);

        assertThat(allocatedRequests()).containsExactly("request-1/sub-request-2", "request-2");
        Builder.testContainerEnv(f, pod, "with-resource-0", true,
                "claim_external_multiclaim_request_1", "true", "user_a", "b", "user_e", "f", "admin_driver", "1");
        Builder.testContainerEnv(f, pod, "with-resource-1", true,
                "claim_external_multiclaim_request_2", "true", "user_g", "h", "admin_driver", "2");
    }

    /** The requests of the claim's allocation results, in order, once it is allocated. */
    private List<String> allocatedRequests() {
        List<String> requests = new ArrayList<>();
        Waits.until("claim " + CLAIM_NAME + " allocated", f.timeouts().podDelete()).until(() -> {
            ResourceClaim current = f.client().resources(ResourceClaim.class).inNamespace(f.namespace())
                    .withName(CLAIM_NAME).get();
            if (current.getStatus() == null || current.getStatus().getAllocation() == null) {
                return false;
            }
            current.getStatus().getAllocation().getDevices().getResults().stream()
                    .map(DeviceRequestAllocationResult::getRequest).forEach(requests::add);
            return true;
        });
        return requests;
    }

    private static ResourceClaim claim(List<DeviceRequest> requests, List<DeviceConstraint> constraints,
            List<DeviceClaimConfiguration> configs) {
        return new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder().withNewMetadata()
                .withName(CLAIM_NAME).endMetadata().withNewSpec().withNewDevices().withRequests(requests)
                .withConstraints(constraints).withConfig(configs).endDevices().endSpec().build();
    }

    private static DeviceRequest firstAvailable(String name, DeviceSubRequest... subRequests) {
        return new DeviceRequestBuilder().withName(name).withFirstAvailable(subRequests).build();
    }

    private static DeviceRequest exactly(String name, Builder builder) {
        return new DeviceRequestBuilder().withName(name).withNewExactly().withDeviceClassName(builder.className())
                .withAllocationMode("ExactCount").withCount(1L).endExactly().build();
    }

    private static DeviceSubRequest subRequest(String name, Builder builder, long count) {
        return new DeviceSubRequestBuilder().withName(name).withDeviceClassName(builder.className())
                .withAllocationMode("ExactCount").withCount(count).build();
    }

    private static DeviceConstraint matchAttribute(String attribute, String... requests) {
        return new DeviceConstraintBuilder().withRequests(requests).withMatchAttribute(attribute).build();
    }

    private static DeviceClaimConfiguration config(Driver driver, String parameters, String... requests) {
        return new DeviceClaimConfigurationBuilder().withRequests(requests).withNewOpaque()
                .withDriver(driver.name()).withParameters(io.fabric8.kubernetes.client.utils.Serialization
                        .unmarshal(parameters, Object.class)).endOpaque().build();
    }
}
