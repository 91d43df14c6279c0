package io.kdra.bench.allocator;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.kdra.allocator.AllocationException;
import io.kdra.allocator.AllocationOutcome;
import io.kdra.allocator.AllocatorFeatures;
import io.kdra.allocator.StructuredAllocator;
import io.kdra.allocator.cel.CelSelectorCompiler;
import io.kdra.allocator.cel.SelectorCompiler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Allocations per second of the structured allocator. One operation allocates one pod's claim on one node, with the
 * inventory prepared once (the slices do not change) and the devices taken so far as the allocated state.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class AllocatorBenchmark {

    private static final SelectorCompiler CEL = CelSelectorCompiler.create(CelSelectorCompiler.Options.defaults());

    /** scheduler_perf's DeviceClass: every device of the test driver. */
    private static final DeviceClass DRIVER_CLASS = new DeviceClassBuilder()
            .withNewMetadata().withName("test-class").endMetadata()
            .withNewSpec().addNewSelector().withNewCel("device.driver == \"" + BenchCluster.DRIVER + "\"")
            .endSelector().endSpec()
            .build();

    /** (a) 500 nodes with 10 node-local devices each; every pod claims one device. */
    @State(Scope.Thread)
    public static class OneDeviceClaims {
        BenchCluster cluster;

        @Setup
        public void setUp() {
            List<ResourceSlice> slices = new ArrayList<>();
            for (int n = 0; n < 500; n++) {
                ResourceSliceBuilder slice = nodeSlice(n, "pool", 1);
                for (int d = 0; d < 10; d++) {
                    slice.editSpec().addToDevices(new DeviceBuilder().withName("device-" + d).build()).endSpec();
                }
                slices.add(slice.build());
            }
            cluster = new BenchCluster(new StructuredAllocator(CEL, AllocatorFeatures.KUBERNETES_1_34),
                    slices, 500, List.of(DRIVER_CLASS), List.of(BenchCluster.claim("claim", "test-class", 1)));
        }
    }

    /**
     * (b) 100 nodes with 8 devices each, which differ in model, index, driver version and memory; every pod claims
     * one device whose model and memory a CEL selector checks, so only half of the devices qualify.
     */
    @State(Scope.Thread)
    public static class CelSelectors {
        static final String SELECTOR = "device.attributes[\"" + BenchCluster.DRIVER + "\"].model == \"A100\""
                + " && device.attributes[\"" + BenchCluster.DRIVER + "\"].driverVersion.isGreaterThan("
                + "semver(\"1.0.0\")) && device.capacity[\"" + BenchCluster.DRIVER + "\"].memory.compareTo("
                + "quantity(\"40Gi\")) >= 0";

        BenchCluster cluster;

        @Setup
        public void setUp() {
            List<ResourceSlice> slices = new ArrayList<>();
            for (int n = 0; n < 100; n++) {
                ResourceSliceBuilder slice = nodeSlice(n, "pool", 1);
                for (int d = 0; d < 8; d++) {
                    slice.editSpec().addToDevices(new DeviceBuilder().withName("device-" + d)
                            .addToAttributes("model", new DeviceAttributeBuilder()
                                    .withString(d % 2 == 0 ? "A100" : "T4").build())
                            .addToAttributes("index", new DeviceAttributeBuilder().withInt((long) d).build())
                            .addToAttributes("driverVersion", new DeviceAttributeBuilder().withVersion("1.2." + d)
                                    .build())
                            .addToCapacity("memory", new DeviceCapacityBuilder()
                                    .withValue(new Quantity(d % 4 == 0 ? "80Gi" : "40Gi")).build())
                            .build()).endSpec();
                }
                slices.add(slice.build());
            }
            cluster = new BenchCluster(new StructuredAllocator(CEL, AllocatorFeatures.KUBERNETES_1_34),
                    slices, 100, List.of(DRIVER_CLASS), List.of(BenchCluster.claim("claim", "test-class", 1, SELECTOR)));
        }
    }

    /**
     * (c) Partitionable devices: 100 nodes with 10 GPUs each, every GPU a pool of two slices (its memory counter set
     * and its partitions), 2,000 slices in all. A GPU offers the whole device (8 units), two halves and four quarters;
     * every pod claims one device, so counters decide which partitions still fit.
     */
    @State(Scope.Thread)
    public static class PartitionableDevices {
        BenchCluster cluster;

        @Setup
        public void setUp() {
            List<ResourceSlice> slices = new ArrayList<>();
            for (int n = 0; n < 100; n++) {
                for (int gpu = 0; gpu < 10; gpu++) {
                    String pool = "gpu-" + gpu;
                    slices.add(nodeSlice(n, pool, 2).editMetadata().withName(BenchCluster.nodeName(n) + "-" + pool
                                    + "-counters").endMetadata()
                            .editSpec().addNewSharedCounter().withName("memory")
                            .withCounters(Map.of("units", new Counter(new Quantity("8")))).endSharedCounter()
                            .endSpec().build());
                    ResourceSliceBuilder partitions = nodeSlice(n, pool, 2);
                    partitions.editSpec().addToDevices(partition("whole", 8)).endSpec();
                    for (int half = 0; half < 2; half++) {
                        partitions.editSpec().addToDevices(partition("half-" + half, 4)).endSpec();
                    }
                    for (int quarter = 0; quarter < 4; quarter++) {
                        partitions.editSpec().addToDevices(partition("quarter-" + quarter, 2)).endSpec();
                    }
                    slices.add(partitions.build());
                }
            }
            cluster = new BenchCluster(new StructuredAllocator(CEL,
                    AllocatorFeatures.KUBERNETES_1_34.withGate("DRAPartitionableDevices", true)),
                    slices, 100, List.of(DRIVER_CLASS), List.of(BenchCluster.claim("claim", "test-class", 1)));
        }

        private static Device partition(String name, int units) {
            return new DeviceBuilder().withName(name).addNewConsumesCounter().withCounterSet("memory")
                    .withCounters(Map.of("units", new Counter(new Quantity(String.valueOf(units)))))
                    .endConsumesCounter().build();
        }
    }

    @Benchmark
    public AllocationOutcome oneDeviceClaims500Nodes(OneDeviceClaims state) throws AllocationException {
        return state.cluster.allocateNext();
    }

    @Benchmark
    public AllocationOutcome celSelectors100Nodes(CelSelectors state) throws AllocationException {
        return state.cluster.allocateNext();
    }

    /** (b) with the inventory prepared anew before each allocation, so every selector really runs. */
    @Benchmark
    public AllocationOutcome celSelectors100NodesFreshInventory(CelSelectors state) throws AllocationException {
        state.cluster.refreshInventory();
        return state.cluster.allocateNext();
    }

    @Benchmark
    public AllocationOutcome partitionableDevices2000Slices(PartitionableDevices state) throws AllocationException {
        return state.cluster.allocateNext();
    }

    private static ResourceSliceBuilder nodeSlice(int node, String pool, long sliceCount) {
        String nodeName = BenchCluster.nodeName(node);
        return new ResourceSliceBuilder()
                .withNewMetadata().withName(nodeName + "-" + pool).endMetadata()
                .withNewSpec().withDriver(BenchCluster.DRIVER).withNodeName(nodeName)
                .withNewPool(1L, nodeName + "-" + pool, sliceCount).endSpec();
    }
}
