package io.kdra.allocator.cel;

import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.util.Map;

/** A selector planned by {@link DraCelEnvironment}; evaluation is bounded by the cost budget. Thread-safe. */
final class CelCompiledSelector implements CompiledSelector {

    private final String expression;
    private final CelRuntime.Program program;
    private final CelSelectorCompiler.Options options;

    CelCompiledSelector(String expression, CelRuntime.Program program, CelSelectorCompiler.Options options) {
        this.expression = expression;
        this.program = program;
        this.options = options;
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
                "CEL result of type " + CelValueTypes.nameOf(result) + " could not be converted to bool");
    }

    @Override
    public String toString() {
        return expression;
    }
}
