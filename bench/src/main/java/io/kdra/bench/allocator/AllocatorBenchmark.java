package io.kdra.bench.allocator;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.kdra.allocator.AllocationException;
import io.kdra.allocator.AllocationOutcome;
import io.kdra.allocator.AllocatorFeatures;
import io.kdra.allocator.StructuredAllocator;
import io.kdra.allocator.cel.SelectorCompileException;
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

    /** These workloads use no selectors, so nothing is ever compiled. */
    private static final SelectorCompiler NO_SELECTORS = expression -> {
        throw new SelectorCompileException("this benchmark has no selectors: " + expression);
    };

    private static final DeviceClass PLAIN_CLASS =
            new DeviceClassBuilder().withNewMetadata().withName("test-class").endMetadata().withNewSpec().endSpec()
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
            cluster = new BenchCluster(new StructuredAllocator(NO_SELECTORS, AllocatorFeatures.KUBERNETES_1_34),
                    slices, 500, List.of(PLAIN_CLASS), List.of(BenchCluster.claim("claim", "test-class", 1)));
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
            cluster = new BenchCluster(new StructuredAllocator(NO_SELECTORS,
                    AllocatorFeatures.KUBERNETES_1_34.withGate("DRAPartitionableDevices", true)),
                    slices, 100, List.of(PLAIN_CLASS), List.of(BenchCluster.claim("claim", "test-class", 1)));
        }

        private static io.fabric8.kubernetes.api.model.resource.v1.Device partition(String name, int units) {
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
