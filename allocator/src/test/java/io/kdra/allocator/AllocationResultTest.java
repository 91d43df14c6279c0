package io.kdra.allocator;

import static io.kdra.allocator.AllocationRulesTest.capacityClaim;
import static io.kdra.allocator.AllocationRulesTest.devices;
import static io.kdra.allocator.AllocationRulesTest.shareable;
import static io.kdra.allocator.Fixtures.NODE;
import static io.kdra.allocator.Fixtures.capacity;
import static io.kdra.allocator.Fixtures.claim;
import static io.kdra.allocator.Fixtures.device;
import static io.kdra.allocator.Fixtures.exact;
import static io.kdra.allocator.Fixtures.exactly;
import static io.kdra.allocator.Fixtures.firstAvailable;
import static io.kdra.allocator.Fixtures.labelSelector;
import static io.kdra.allocator.Fixtures.node;
import static io.kdra.allocator.Fixtures.request;
import static io.kdra.allocator.Fixtures.slice;
import static io.kdra.allocator.Fixtures.sub;
import static io.kdra.allocator.Fixtures.toleration;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The shape of allocation results: configs in upstream order, node selectors, share IDs, copied fields. */
class AllocationResultTest {

    @Test
    void classConfigsComeFirstOncePerClassThenClaimConfigs() throws Exception {
        Scenario scenario = new Scenario().classes(configured("gpu-a", "A"), configured("gpu-b", "B"))
                .slices(devices(slice("s1", "p1", NODE), "d0", "d1", "d2"))
                .claims(withConfigs(claim("c", exact("x", "gpu-a", 1), exact("y", "gpu-b", 1), exact("z", "gpu-a", 1)),
                        config("all"), config("x-and-y", "x", "y"), config("other", "nope")));

        assertThat(configs(scenario.results().get(0))).containsExactly(
                "FromClass A [x, z]", "FromClass B [y]", "FromClaim all []",
                "FromClaim x-and-y [x, y]", "FromClaim x-and-y [x, y]");
    }

    @Test
    void configsForTheChosenSubrequestOnly() throws Exception {
        Scenario scenario = new Scenario().classes(configured("gpu-a", "A"), configured("gpu-b", "B"))
                .slices(devices(slice("s1", "p1", NODE), "d0"))
                .claims(withConfigs(claim("c", firstAvailable("r", sub("big", "gpu-a", 2), sub("small", "gpu-b", 1))),
                        config("for-big", "r/big"), config("for-small", "r/small"), config("for-r", "r")));

        assertThat(configs(scenario.results().get(0)))
                .containsExactly("FromClass B []", "FromClaim for-small []", "FromClaim for-r []");
    }

    @Test
    void nodeLocalDevicesPinTheClaimToTheNode() throws Exception {
        Scenario scenario = new Scenario().slices(devices(slice("s1", "p1", NODE), "d0"))
                .claims(claim("c", exact("r", "gpu", 1)));

        assertThat(nodeSelector(scenario)).isEqualTo("fields metadata.name In [node-1]");
    }

    @Test
    void devicesForAllNodesLeaveTheClaimUnrestricted() throws Exception {
        Scenario scenario = new Scenario().slices(devices(slice("s1", "p1", null), "d0").editSpec()
                        .withAllNodes(true).endSpec())
                .claims(claim("c", exact("r", "gpu", 1)));

        assertThat(scenario.results().get(0).getNodeSelector()).isNull();
    }

    @Test
    void nodeSelectorsOfTheDevicesAreMergedIntoOneTerm() throws Exception {
        Scenario scenario = new Scenario().node(node(NODE, "zone", "a", "rack", "7"))
                .slices(devices(slice("s1", "p1", null), "d0").editSpec()
                                .withNodeSelector(labelSelector("zone", "In", "a")).endSpec(),
                        devices(slice("s2", "p2", null), "d1").editSpec()
                                .withNodeSelector(labelSelector("zone", "In", "a")).endSpec(),
                        devices(slice("s3", "p3", null), "d2").editSpec()
                                .withNodeSelector(labelSelector("rack", "Exists")).endSpec())
                .claims(claim("c", exact("r", "gpu", 3)));

        assertThat(nodeSelector(scenario)).isEqualTo("labels zone In [a], rack Exists []");
    }

    @Test
    void perDeviceNodeNameAndBindsToNodePinTheClaim() throws Exception {
        Scenario perDevice = new Scenario().gate("DRAPartitionableDevices", true)
                .slices(slice("s1", "p1", null).editSpec().withPerDeviceNodeSelection(true)
                        .addToDevices(device("d0").withNodeName(NODE).build()).endSpec())
                .claims(claim("c", exact("r", "gpu", 1)));
        Scenario bindsToNode = new Scenario().gate("DRADeviceBindingConditions", true)
                .slices(slice("s1", "p1", null).editSpec().withAllNodes(true)
                        .addToDevices(device("d0").withBindsToNode(true).withBindingConditions("ready").build())
                        .endSpec())
                .claims(claim("c", exact("r", "gpu", 1)));

        assertThat(nodeSelector(perDevice)).isEqualTo("fields metadata.name In [node-1]");
        assertThat(nodeSelector(bindsToNode)).isEqualTo("fields metadata.name In [node-1]");
    }

    @Test
    void aSliceSelectorWithSeveralTermsCannotBeMerged() {
        NodeSelector twoTerms = labelSelector("zone", "In", "a");
        twoTerms.getNodeSelectorTerms().add(new NodeSelectorTermBuilder().addNewMatchExpression()
                .withKey("zone").withOperator("In").withValues("b").endMatchExpression().build());
        Scenario scenario = new Scenario().node(node(NODE, "zone", "a"))
                .slices(devices(slice("s1", "p1", null), "d0").editSpec().withNodeSelector(twoTerms).endSpec())
                .claims(claim("c", exact("r", "gpu", 1)));

        assertThat(scenario.outcome())
                .isEqualTo("error: create NodeSelector for claim c: unsupported ResourceSlice.NodeSelector with 2 terms");
    }

    @Test
    void sharesGetDistinctStableIdsAndReportCapacityUnderThePublishedName() throws Exception {
        Scenario scenario = shareable(capacity("10Gi")).claims(
                claim("c1", request("r", exactly("gpu").withNewCapacity()
                        .addToRequests("test.example.com/memory", new Quantity("1Gi")).endCapacity())),
                capacityClaim("c2", "4Gi"));

        List<AllocationResult> first = scenario.results();
        List<AllocationResult> second = scenario.results();

        DeviceRequestAllocationResult share1 = first.get(0).getDevices().getResults().get(0);
        DeviceRequestAllocationResult share2 = first.get(1).getDevices().getResults().get(0);
        assertThat(share1.getShareID()).matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
                .isNotEqualTo(share2.getShareID());
        assertThat(second).isEqualTo(first);
        assertThat(share1.getConsumedCapacity()).containsOnlyKeys("memory");
        assertThat(share1.getConsumedCapacity().get("memory")).isEqualTo(new Quantity("1Gi"));
    }

    @Test
    void aCapacityRequestedUnderBothSpellingsIsAnError() {
        Scenario scenario = shareable(capacity("10Gi")).claims(claim("c", request("r", exactly("gpu")
                .withNewCapacity().addToRequests("memory", new Quantity("1Gi"))
                .addToRequests("test.example.com/memory", new Quantity("2Gi")).endCapacity())));

        assertThat(scenario.outcome()).isEqualTo("error: claim ns/c, request r: capacity \"memory\" requested both as"
                + " \"memory\" and as \"test.example.com/memory\"");
    }

    @Test
    void tolerationsOfTheRequestAreCopiedIntoTheResult() throws Exception {
        Scenario scenario = new Scenario().gate("DRADeviceTaints", true)
                .slices(devices(slice("s1", "p1", NODE), "d0"))
                .claims(claim("c", request("r", exactly("gpu").withTolerations(toleration("k", "Exists", null, null)))));

        DeviceRequestAllocationResult result = scenario.results().get(0).getDevices().getResults().get(0);
        assertThat(result.getTolerations()).containsExactly(toleration("k", "Exists", null, null));
        assertThat(result.getAdminAccess()).isNull();
    }

    private static DeviceClass configured(String name, String parameter) {
        return new DeviceClassBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .addToConfig(new DeviceClassConfigurationBuilder().withNewOpaque().withDriver(Fixtures.DRIVER)
                        .withParameters(Map.of("p", parameter)).endOpaque().build())
                .endSpec().build();
    }

    private static ResourceClaimBuilder withConfigs(ResourceClaimBuilder claim,
            io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimConfiguration... configs) {
        return claim.editSpec().editDevices().withConfig(configs).endDevices().endSpec();
    }

    private static io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimConfiguration config(String parameter,
            String... requests) {
        return new DeviceClaimConfigurationBuilder().withRequests(requests).withNewOpaque()
                .withDriver(Fixtures.DRIVER).withParameters(Map.of("p", parameter)).endOpaque().build();
    }

    private static List<String> configs(AllocationResult result) {
        return result.getDevices().getConfig().stream().map(AllocationResultTest::describe).collect(Collectors.toList());
    }

    private static String describe(DeviceAllocationConfiguration config) {
        return config.getSource() + " " + ((Map<?, ?>) config.getOpaque().getParameters()).get("p") + " "
                + config.getRequests();
    }

    private static String nodeSelector(Scenario scenario) throws AllocationException {
        NodeSelector selector = scenario.results().get(0).getNodeSelector();
        assertThat(selector.getNodeSelectorTerms()).hasSize(1);
        NodeSelectorTerm term = selector.getNodeSelectorTerms().get(0);
        String fields = term.getMatchFields().stream()
                .map(r -> r.getKey() + " " + r.getOperator() + " " + r.getValues()).collect(Collectors.joining(", "));
        String labels = term.getMatchExpressions().stream()
                .map(r -> r.getKey() + " " + r.getOperator() + " " + r.getValues()).collect(Collectors.joining(", "));
        return (fields.isEmpty() ? "" : "fields " + fields) + (labels.isEmpty() ? "" : "labels " + labels);
    }
}
