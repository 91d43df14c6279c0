package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.kdra.allocator.cel.CelSelectorCompiler;
import io.kdra.allocator.cel.CompiledSelector;
import io.kdra.allocator.cel.SelectorCompileException;
import io.kdra.allocator.cel.SelectorCompiler;
import io.kdra.allocator.cel.SelectorEvaluationException;
import java.util.concurrent.atomic.AtomicInteger;

/** The Kubernetes CEL environment for the allocator tests, shared because building it takes a while. */
final class Selectors {

    private static final SelectorCompiler CEL = CelSelectorCompiler.create(CelSelectorCompiler.Options.defaults());
    private static final SelectorCompiler CEL_CONSUMABLE = CelSelectorCompiler.create(
            CelSelectorCompiler.Options.defaults().withConsumableCapacity(true));

    private Selectors() {}

    /** The environment that matches the features, as the scheduler builds it. */
    static SelectorCompiler compilerFor(AllocatorFeatures features) {
        return features.consumableCapacity() ? CEL_CONSUMABLE : CEL;
    }

    /** Wraps the CEL environment and counts how often selectors run. */
    static final class Counting implements SelectorCompiler {
        final AtomicInteger evaluations = new AtomicInteger();

        @Override
        public CompiledSelector compile(String expression) throws SelectorCompileException {
            CompiledSelector compiled = CEL.compile(expression);
            return new CompiledSelector() {
                @Override
                public String expression() {
                    return compiled.expression();
                }

                @Override
                public boolean matches(String driver, Device device) throws SelectorEvaluationException {
                    evaluations.incrementAndGet();
                    return compiled.matches(driver, device);
                }
            };
        }
    }
}
