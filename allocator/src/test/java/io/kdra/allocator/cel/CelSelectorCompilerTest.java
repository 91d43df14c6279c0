package io.kdra.allocator.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CelSelectorCompilerTest {

    static final String DRIVER = "dra.example.com";
    private static final CelSelectorCompiler COMPILER = CelSelectorCompiler.create(CelSelectorCompiler.Options.defaults());
    private static final ExecutorService THREADS = Executors.newFixedThreadPool(4);

    /** A GPU published by {@link #DRIVER}: unqualified and qualified attributes, capacity. */
    static Device gpu() {
        Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
        attributes.put("model", new DeviceAttributeBuilder().withString("A100").build());
        attributes.put("count", new DeviceAttributeBuilder().withInt(4L).build());
        attributes.put("healthy", new DeviceAttributeBuilder().withBool(true).build());
        attributes.put("driverVersion", new DeviceAttributeBuilder().withVersion("1.3.0-rc.1").build());
        attributes.put("numa.example.com/node", new DeviceAttributeBuilder().withInt(1L).build());
        attributes.put("cores", new DeviceAttributeBuilder().withInts(3L, 1L, 2L).build());
        return new DeviceBuilder()
                .withName("gpu-0")
                .withAttributes(attributes)
                .withCapacity(Map.of(
                        "memory", new DeviceCapacityBuilder().withValue(new Quantity("80Gi")).build(),
                        "numa.example.com/bandwidth", new DeviceCapacityBuilder().withValue(new Quantity("1.5T"))
                                .build()))
                .build();
    }

    static boolean matches(String expression) throws Exception {
        return COMPILER.compile(expression).matches(DRIVER, gpu());
    }

    static String runtimeError(String expression) {
        return runtimeError(COMPILER, expression);
    }

    static String runtimeError(CelSelectorCompiler compiler, String expression) {
        try {
            compiler.compile(expression).matches(DRIVER, gpu());
        } catch (SelectorEvaluationException expected) {
            return expected.getMessage();
        } catch (SelectorCompileException unexpected) {
            throw new AssertionError(unexpected.getMessage(), unexpected);
        }
        throw new AssertionError("no runtime error for " + expression);
    }

    static String compileError(String expression) {
        try {
            COMPILER.compile(expression);
        } catch (SelectorCompileException expected) {
            return expected.getMessage();
        }
        throw new AssertionError("no compile error for " + expression);
    }

    /** A type-check error, at some position of the expression, that names {@code message}. */
    static void assertCheckError(String expression, String message) {
        assertThat(compileError(expression)).startsWith("compilation failed: ERROR: <input>:").contains(message);
    }

    @AfterAll
    static void stopThreads() {
        THREADS.shutdownNow();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "device.driver == \"dra.example.com\"",
        "device.attributes[\"dra.example.com\"].model == \"A100\"",
        "device.attributes[\"dra.example.com\"].count == 4",
        "device.attributes[\"dra.example.com\"].count > 3.5",
        "device.attributes[\"dra.example.com\"].healthy",
        "device.attributes[\"numa.example.com\"].node == 1",
        "device.attributes[\"dra.example.com\"].driverVersion.isLessThan(semver(\"1.3.0\"))",
        "device.attributes[\"dra.example.com\"].driverVersion.isGreaterThan(semver(\"1.2.9\"))",
        "device.attributes[\"dra.example.com\"].driverVersion.major() == 1",
        "device.attributes[\"dra.example.com\"].cores == [3, 1, 2]",
        "device.attributes[\"dra.example.com\"].cores.min() == 1",
        "device.capacity[\"dra.example.com\"].memory.compareTo(quantity(\"10Gi\")) >= 0",
        "device.capacity[\"dra.example.com\"].memory.isGreaterThan(quantity(\"79Gi\"))",
        "device.capacity[\"dra.example.com\"].memory == quantity(\"81920Mi\")",
        "device.capacity[\"numa.example.com\"].bandwidth.isLessThan(quantity(\"2T\"))",
        "device.attributes.exists(domain, domain == \"numa.example.com\")",
        "cel.bind(dra, device.attributes[\"dra.example.com\"], dra.healthy && dra.count == 4)",
    })
    void selectsOnTheDeviceVariable(String expression) throws Exception {
        assertThat(matches(expression)).isTrue();
    }

    @Test
    void unknownDomainIsAnEmptyMapButNotPresent() throws Exception {
        assertThat(matches("device.attributes[\"other.example.com\"] == {}")).isTrue();
        assertThat(matches("size(device.capacity[\"other.example.com\"]) == 0")).isTrue();
        assertThat(matches("\"other.example.com\" in device.attributes")).isFalse();
        assertThat(matches("\"dra.example.com\" in device.attributes")).isTrue();
        assertThat(matches("has(device.attributes.nothing)")).isFalse();
        assertThat(matches("size(device.attributes) == 2")).isTrue();
        assertThat(matches("\"other\" in device.attributes[\"other.example.com\"]")).isFalse();
    }

    @Test
    void missingNameInADomainIsAnError() throws Exception {
        assertThat(runtimeError("device.attributes[\"dra.example.com\"].exists"))
                .isEqualTo("no such key: exists");
        assertThat(runtimeError("device.attributes[\"other.example.com\"].model"))
                .isEqualTo("no such key: model");
        assertThat(matches("\"exists\" in device.attributes[\"dra.example.com\"] "
                + "&& device.attributes[\"dra.example.com\"].exists")).isFalse();
        assertThat(matches("device.attributes[\"dra.example.com\"].?exists.orValue(false)")).isFalse();
    }

    @Test
    void typeChecksTheDeviceObject() {
        assertThat(compileError("device.foo")).isEqualTo("""
                compilation failed: ERROR: <input>:1:7: undefined field 'foo'
                 | device.foo
                 | ......^""");
        assertThat(compileError("device.driver == 1")).startsWith(
                "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to "
                        + "'(string, int)'");
        assertThat(compileError("device.allowMultipleAllocations")).contains("undefined field 'allowMultipleAllocations'");
    }

    @Test
    void declaresAllowMultipleAllocationsWithConsumableCapacity() throws Exception {
        CelSelectorCompiler compiler = CelSelectorCompiler.create(
                CelSelectorCompiler.Options.defaults().withConsumableCapacity(true));
        Device shared = new DeviceBuilder(gpu()).withAllowMultipleAllocations(true).build();
        assertThat(compiler.compile("device.allowMultipleAllocations").matches(DRIVER, shared)).isTrue();
        assertThat(compiler.compile("device.allowMultipleAllocations").matches(DRIVER, gpu())).isFalse();
    }

    @Test
    void reportsBadDeviceDataAsRuntimeErrors() throws Exception {
        Device badVersion = new DeviceBuilder(gpu())
                .addToAttributes("v", new DeviceAttributeBuilder().withVersion("1.0").build()).build();
        assertThatThrownBy(() -> COMPILER.compile("true").matches(DRIVER, badVersion))
                .isInstanceOf(SelectorEvaluationException.class)
                .hasMessage("attribute v: parse semantic version: No Major.Minor.Patch elements found");
        Device noValue = new DeviceBuilder(gpu()).addToAttributes("empty", new DeviceAttribute()).build();
        assertThatThrownBy(() -> COMPILER.compile("true").matches(DRIVER, noValue))
                .hasMessage("attribute empty: unsupported attribute value");
        Device badCapacity = new DeviceBuilder(gpu())
                .addToCapacity("bad", new DeviceCapacityBuilder().withValue(new Quantity("1Mo")).build()).build();
        assertThatThrownBy(() -> COMPILER.compile("true").matches(DRIVER, badCapacity))
                .hasMessage("capacity bad: quantities must match the regular expression "
                        + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    }

    @Test
    void requiresABoolResult() {
        assertThat(compileError("device.driver")).isEqualTo("must evaluate to bool or the unknown type, not string");
        assertThat(compileError("device.attributes"))
                .isEqualTo("must evaluate to bool or the unknown type, not map(string, map(string, dyn))");
        assertThat(compileError("quantity(\"1\")"))
                .isEqualTo("must evaluate to bool or the unknown type, not kubernetes.Quantity");
        assertThat(runtimeError("device.attributes[\"dra.example.com\"].model"))
                .isEqualTo("CEL result of type string could not be converted to bool");
        assertThat(runtimeError("device.attributes[\"dra.example.com\"].count"))
                .isEqualTo("CEL result of type int could not be converted to bool");
    }

    @Test
    void reportsSyntaxErrorsWithPosition() {
        assertThat(compileError("x")).isEqualTo("""
                compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')
                 | x
                 | ^""");
        assertThat(compileError("device.driver ==")).startsWith("compilation failed: ERROR: <input>:1:17: ");
    }

    @Test
    void requiresAnExpression() {
        assertThat(compileError(null)).isEqualTo("Required value: expression");
        assertThat(compileError("")).startsWith("compilation failed: ERROR: <input>:1:1: ");
    }

    @Test
    void limitsExpressionLengthInBytes() throws Exception {
        String padding = " ".repeat(CelSelectorCompiler.MAX_EXPRESSION_LENGTH - "true".length());
        assertThat(COMPILER.compile(padding + "true").matches(DRIVER, gpu())).isTrue();
        assertThat(compileError(padding + "true ")).isEqualTo("Too long: may not be more than 10240 bytes");
        String multibyte = "\"" + "é".repeat(5119) + "\" != \"\"";
        assertThat(compileError(multibyte)).isEqualTo("Too long: may not be more than 10240 bytes");
    }

    @Test
    void enforcesTheCostBudget() throws Exception {
        String cubic = "[1,2,3,4,5,6,7,8,9,10].all(i, [1,2,3,4,5,6,7,8,9,10].all(j, "
                + "[1,2,3,4,5,6,7,8,9,10].all(k, i + j + k > 0)))";
        assertThat(matches(cubic)).isTrue();
        CelSelectorCompiler small = CelSelectorCompiler.create(
                CelSelectorCompiler.Options.defaults().withCostLimit(1_000));
        assertThat(runtimeError(small, cubic)).isEqualTo("operation cancelled: actual cost limit exceeded");
        assertThat(small.compile("device.driver == \"dra.example.com\"").matches(DRIVER, gpu())).isTrue();
    }

    @Test
    void stopsRunawayExpressionsWithTheDefaultBudget() {
        String quartic = "[" + "1,".repeat(99) + "1].all(a, [" + "1,".repeat(99) + "1].all(b, [" + "1,".repeat(99)
                + "1].all(c, true)))";
        assertThat(runtimeError(quartic)).isEqualTo("operation cancelled: actual cost limit exceeded");
    }

    @Test
    void enforcesTheIterationLimit() {
        CelSelectorCompiler limited = CelSelectorCompiler.create(
                CelSelectorCompiler.Options.defaults().withIterationLimit(5));
        assertThat(runtimeError(limited, "[1,2,3,4,5,6].all(i, i > 0)"))
                .isEqualTo("operation cancelled: Iteration budget exceeded: 5");
    }

    @Test
    void rejectsInvalidOptions() {
        assertThatThrownBy(() -> CelSelectorCompiler.Options.defaults().withCostLimit(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cost limit, iteration limit and cache size must be positive, got 0, 1000000, 256");
    }

    @Test
    void cachesCompiledSelectorsAndErrors() throws Exception {
        CompiledSelector first = COMPILER.compile("device.driver != \"\"");
        assertThat(COMPILER.compile("device.driver != \"\"")).isSameAs(first);
        assertThat(first.expression()).isEqualTo("device.driver != \"\"");
        assertThat(compileError("device.nope")).isEqualTo(compileError("device.nope"));
    }

    @Test
    void cacheIsBoundedAndEvictsTheLeastRecentlyUsed() throws Exception {
        CelSelectorCompiler tiny = CelSelectorCompiler.create(CelSelectorCompiler.Options.defaults().withCacheSize(2));
        CompiledSelector a = tiny.compile("true");
        CompiledSelector b = tiny.compile("false");
        assertThat(tiny.compile("true")).isSameAs(a);
        tiny.compile("1 == 1");
        assertThat(tiny.compile("true")).isSameAs(a);
        assertThat(tiny.compile("false")).isNotSameAs(b);
    }

    @Test
    void concurrentCompilationsShareOneSelector() throws Exception {
        CelSelectorCompiler compiler = CelSelectorCompiler.create(CelSelectorCompiler.Options.defaults());
        List<Callable<CompiledSelector>> tasks = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            tasks.add(() -> compiler.compile("device.attributes[\"dra.example.com\"].count == 4"));
        }
        List<CompiledSelector> results = new ArrayList<>();
        for (Future<CompiledSelector> result : THREADS.invokeAll(tasks)) {
            results.add(result.get());
        }
        assertThat(results).allSatisfy(selector -> assertThat(selector).isSameAs(results.get(0)));
        assertThat(results.get(0).matches(DRIVER, gpu())).isTrue();
    }
}
