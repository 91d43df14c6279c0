package io.kdra.allocator;

import static io.kdra.allocator.AllocationRulesTest.allocatedClaim;
import static io.kdra.allocator.AllocationRulesTest.devices;
import static io.kdra.allocator.AllocationRulesTest.id;
import static io.kdra.allocator.Fixtures.NODE;
import static io.kdra.allocator.Fixtures.claim;
import static io.kdra.allocator.Fixtures.device;
import static io.kdra.allocator.Fixtures.deviceClass;
import static io.kdra.allocator.Fixtures.exact;
import static io.kdra.allocator.Fixtures.node;
import static io.kdra.allocator.Fixtures.slice;
import static io.kdra.allocator.Fixtures.str;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Inventory preparation, caching, bad slices and the allocated-state helpers. */
class InventoryTest {

    private final Selectors.Counting compiler = new Selectors.Counting();
    private final StructuredAllocator allocator = new StructuredAllocator(compiler, AllocatorFeatures.ALL);

    @Test
    void aSliceWithoutDriverIsRejectedByName() {
        ResourceSlice broken = slice("s1", "p1", NODE).editSpec().withDriver(null).endSpec().build();

        assertThatThrownBy(() -> allocator.inventory(List.of(broken), List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ResourceSlice s1: spec.driver is missing");
        assertThatThrownBy(() -> allocator.allocate(new AllocationInput(List.of(), node(NODE), List.of(broken),
                List.of(), List.of(), AllocatedState.NONE)))
                .isInstanceOf(AllocationException.class)
                .hasMessage("ResourceSlice s1: spec.driver is missing");
    }

    @Test
    void aSliceWithoutPoolSizeIsRejectedByName() {
        ResourceSlice broken = slice("s1", "p1", NODE).editSpec().editPool().withResourceSliceCount(null).endPool()
                .endSpec().build();

        assertThatThrownBy(() -> allocator.inventory(List.of(broken), List.of()))
                .hasMessage("ResourceSlice s1: spec.pool.resourceSliceCount must be greater than zero");
    }

    @Test
    void aMalformedQuantityMakesThePoolInvalid() {
        Scenario scenario = new Scenario().slices(slice("s1", "p1", NODE).editSpec().addToDevices(device("d0")
                        .addToCapacity("memory", Fixtures.capacity("lots")).build()).endSpec())
                .claims(claim("c", exact("r", "gpu", 1)));

        assertThat(scenario.outcome()).startsWith("cannot allocate: invalid resource pools were encountered:"
                + " resource pool test.example.com/p1: ResourceSlice s1: device test.example.com/p1/d0: capacity"
                + " memory value: invalid quantity \"lots\"");
    }

    @Test
    void eachSelectorRunsOncePerDeviceAcrossAllocations() throws Exception {
        DeviceClass t1 = deviceClass("t1", "device.attributes[\"test.example.com\"].model == \"T1\"");
        Inventory inventory = allocator.inventory(List.of(slice("s1", "p1", NODE).editSpec()
                .addToDevices(device("d0").addToAttributes("model", str("T2")).build())
                .addToDevices(device("d1").addToAttributes("model", str("T1")).build()).endSpec().build()), List.of());
        List<ResourceClaim> claims = List.of(claim("c", exact("r", "t1", 1)).build());

        for (int i = 0; i < 3; i++) {
            allocator.allocate(claims, node(NODE), inventory, Map.of("t1", t1), AllocatedState.NONE);
        }

        assertThat(compiler.evaluations.get()).isEqualTo(2);
    }

    @Test
    void anInventoryServesOnlyTheAllocatorThatBuiltIt() {
        Inventory foreign = new StructuredAllocator(compiler, AllocatorFeatures.ALL).inventory(List.of(), List.of());

        assertThatThrownBy(() -> allocator.allocate(List.of(), node(NODE), foreign, Map.of(), AllocatedState.NONE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the inventory was prepared by another allocator");
    }

    @Test
    void anInterruptedCallerAbortsTheSearch() {
        Scenario scenario = new Scenario().slices(devices(slice("s1", "p1", NODE), "d0"))
                .claims(claim("c", exact("r", "gpu", 1)));

        Thread.currentThread().interrupt();
        try {
            assertThat(scenario.outcome()).isEqualTo("error: filter operation aborted: thread interrupted");
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void theSameInputGivesTheSameResultWhateverTheSliceOrder() throws Exception {
        Scenario scenario = new Scenario().slices(
                        devices(slice("s-b", "pool-b", NODE), "d0", "d1"),
                        devices(slice("s-a", "pool-a", NODE), "d0", "d1"),
                        devices(slice("s-c", "pool-c", null), "d0").editSpec().withAllNodes(true).endSpec())
                .claims(claim("c1", exact("r", "gpu", 3)), claim("c2", exact("r", "gpu", 1)));
        String expected = Scenario.render(scenario.allocate());
        Random random = new Random(42);

        for (int i = 0; i < 10; i++) {
            List<ResourceSlice> shuffled = new ArrayList<>(scenario.slices);
            Collections.shuffle(shuffled, random);
            scenario.slices.clear();
            scenario.slices.addAll(shuffled);
            assertThat(Scenario.render(scenario.allocate())).isEqualTo(expected);
        }
        assertThat(expected).isEqualTo("r=pool-a/d0, r=pool-a/d1, r=pool-b/d0; r=pool-b/d1");
    }

    @Test
    void allocatedStateSkipsAdminAccessAndSumsSharedCapacity() {
        ResourceClaim exclusive = allocatedClaim("p1", "d0", false, null);
        ResourceClaim admin = allocatedClaim("p1", "d1", true, null);
        ResourceClaim share1 = shared("uid-1", "3Gi");
        ResourceClaim share2 = shared("uid-2", "1Gi");

        AllocatedState state = AllocatedState.fromClaims(List.of(exclusive, admin, share1, share2));

        assertThat(state.devices()).containsExactly(id("p1", "d0"));
        assertThat(state.sharedDevices()).containsExactly(id("p1", "d2"));
        assertThat(state.consumedCapacity().get(id("p1", "d2")))
                .containsExactly(Map.entry("test.example.com/memory", new BigDecimal(4L << 30)));
    }

    @Test
    void allocatedStatePlusAddsNewResults() {
        AllocatedState state = AllocatedState.NONE.plus(List.of(
                allocatedClaim("p1", "d5", false, null).getStatus().getAllocation()));

        assertThat(state.devices()).containsExactly(id("p1", "d5"));
        assertThat(AllocatedState.NONE.devices()).isEmpty();
    }

    @Test
    void aMalformedConsumedCapacityIsNamed() {
        ResourceClaim broken = shared("uid-1", "much");

        assertThatThrownBy(() -> AllocatedState.fromClaims(List.of(broken)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("ns/old, device test.example.com/p1/d2: consumed capacity memory: invalid"
                        + " quantity \"much\"");
    }

    private static ResourceClaim shared(String shareId, String memory) {
        return claim("old", exact("r", "gpu", 1)).withNewStatus().withAllocation(new AllocationResultBuilder()
                .withNewDevices().addToResults(new DeviceRequestAllocationResultBuilder().withRequest("r")
                        .withDriver(Fixtures.DRIVER).withPool("p1").withDevice("d2").withShareID(shareId)
                        .withConsumedCapacity(Map.of("memory", new Quantity(memory))).build())
                .endDevices().build()).endStatus().build();
    }
}
