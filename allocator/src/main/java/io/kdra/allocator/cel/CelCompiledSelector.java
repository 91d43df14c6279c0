package io.kdra.allocator.cel;

import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A selector planned by {@link DraCelEnvironment}; evaluation is bounded by the cost budget. Thread-safe. */
final class CelCompiledSelector implements CompiledSelector {

    private static final Map<Class<?>, String> TYPE_NAMES = typeNames();

    private final String expression;
    private final CelRuntime.Program program;
    private final CelSelectorCompiler.Options options;

    CelCompiledSelector(String expression, CelRuntime.Program program, CelSelectorCompiler.Options options) {
        this.expression = expression;
        this.program = program;
        this.options = options;
    }

    private static Map<Class<?>, String> typeNames() {
        Map<Class<?>, String> names = new LinkedHashMap<>();
        names.put(Long.class, "int");
        names.put(Double.class, "double");
        names.put(String.class, "string");
        names.put(List.class, "list");
        names.put(Map.class, "map");
        names.put(Optional.class, "optional_type");
        names.put(Quantity.class, QuantityLibrary.TYPE.name());
        names.put(Semver.class, SemverLibrary.TYPE.name());
        return names;
    }

    @Override
    public String expression() {
        return expression;
    }

    @Override
    public boolean matches(String driver, Device device) throws SelectorEvaluationException {
        Map<String, Object> variables = Map.of(DeviceVariable.NAME,
                DeviceVariable.value(driver, device, options.consumableCapacity()));
        Object result;
        try {
            result = program.trace(variables, new CostTracker(options.costLimit()));
        } catch (CelEvaluationException failure) {
            throw new SelectorEvaluationException(EvaluationErrors.describe(failure), failure);
        }
        if (result instanceof Boolean matches) {
            return matches;
        }
        throw new SelectorEvaluationException(
                "CEL result of type " + celTypeName(result) + " could not be converted to bool");
    }

    /** The CEL type name of a runtime value, as cel-go prints it. */
    private static String celTypeName(Object value) {
        return TYPE_NAMES.entrySet().stream()
                .filter(type -> type.getKey().isInstance(value))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse(value == null ? "null_type" : value.getClass().getSimpleName());
    }

    @Override
    public String toString() {
        return expression;
    }
}
