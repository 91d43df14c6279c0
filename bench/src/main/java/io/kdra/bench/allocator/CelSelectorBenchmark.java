package io.kdra.bench.allocator;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.kdra.allocator.cel.CelSelectorCompiler;
import io.kdra.allocator.cel.CompiledSelector;
import io.kdra.allocator.cel.SelectorCompileException;
import io.kdra.allocator.cel.SelectorEvaluationException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Cost of the DRA CEL environment: compiling a selector (cache miss and hit) and evaluating it against one device.
 * Run: {@code java -jar bench/target/kdra-benchmarks.jar CelSelectorBenchmark -f 1 -wi 3 -i 5}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CelSelectorBenchmark {

    private static final String DRIVER = "dra.example.com";

    /** Typical selectors: driver check, attribute plus capacity, version, comprehension over a domain. */
    @Param({
        "device.driver == \"dra.example.com\"",
        "device.attributes[\"dra.example.com\"].model == \"A100\" && "
                + "device.capacity[\"dra.example.com\"].memory.compareTo(quantity(\"10Gi\")) >= 0",
        "device.attributes[\"dra.example.com\"].driverVersion.isGreaterThan(semver(\"1.2.3\"))",
        "device.attributes[\"dra.example.com\"].exists(name, name == \"healthy\") && "
                + "device.attributes[\"dra.example.com\"].healthy",
    })
    public String expression;

    private CelSelectorCompiler compiler;
    private CompiledSelector selector;
    private Device device;
    private long uniqueSuffix;

    @Setup
    public void setUp() throws SelectorCompileException {
        compiler = CelSelectorCompiler.create(CelSelectorCompiler.Options.defaults());
        selector = compiler.compile(expression);
        device = new DeviceBuilder()
                .withName("gpu-0")
                .withAttributes(Map.of(
                        "model", new DeviceAttributeBuilder().withString("A100").build(),
                        "healthy", new DeviceAttributeBuilder().withBool(true).build(),
                        "driverVersion", new DeviceAttributeBuilder().withVersion("1.3.0").build(),
                        "index", new DeviceAttributeBuilder().withInt(0L).build()))
                .withCapacity(Map.of("memory", new DeviceCapacityBuilder().withValue(new Quantity("80Gi")).build()))
                .build();
    }

    /** Parse, type-check, validate and plan a text the cache has not seen. */
    @Benchmark
    public CompiledSelector compileUncached() throws SelectorCompileException {
        return compiler.compile(expression + " || " + (uniqueSuffix++) + " < 0");
    }

    @Benchmark
    public CompiledSelector compileCached() throws SelectorCompileException {
        return compiler.compile(expression);
    }

    /** Build the device variable and evaluate under the cost budget. */
    @Benchmark
    public boolean evaluate() throws SelectorEvaluationException {
        return selector.matches(DRIVER, device);
    }
}
