package io.kdra.allocator.cel;

import io.kdra.kube.ExpressionChecker;
import io.kdra.kube.FeatureGates;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compiles DRA device selectors in Kubernetes' CEL environment ({@code dynamic-resource-allocation/cel}): the
 * {@code device} variable, Kubernetes' quantity, semver, list, regex, IP, CIDR and URL libraries, the strings
 * {@code format}, the 10 Ki expression limit and the runtime cost budget. Results, including compile errors, are
 * cached per expression text. Thread-safe.
 *
 * <pre>{@code
 * SelectorCompiler selectors = CelSelectorCompiler.create(CelSelectorCompiler.Options.defaults());
 * CompiledSelector selector = selectors.compile(
 *         "device.capacity[\"dra.example.com\"].memory.compareTo(quantity(\"10Gi\")) >= 0");
 * boolean matches = selector.matches("dra.example.com", device);
 * }</pre>
 */
public final class CelSelectorCompiler implements SelectorCompiler {

    private static final Logger LOG = LoggerFactory.getLogger(CelSelectorCompiler.class);

    /** {@code CELSelectorExpressionMaxLength}, in UTF-8 bytes. */
    public static final int MAX_EXPRESSION_LENGTH = 10 * 1024;
    /** {@code CELSelectorExpressionMaxCost}. */
    public static final long DEFAULT_COST_LIMIT = 1_000_000;
    private static final int DEFAULT_CACHE_SIZE = 256;

    /**
     * @param consumableCapacity whether DRAConsumableCapacity is enabled, which declares
     *     {@code device.allowMultipleAllocations}
     * @param costLimit runtime cost budget per evaluation, one unit per evaluated expression node
     * @param iterationLimit most iterations of any one comprehension (a backstop; iterations also cost)
     * @param cacheSize most compiled expressions kept
     */
    public record Options(boolean consumableCapacity, long costLimit, int iterationLimit, int cacheSize) {

        public Options {
            if (costLimit <= 0 || iterationLimit <= 0 || cacheSize <= 0) {
                throw new IllegalArgumentException("cost limit, iteration limit and cache size must be positive, got "
                        + costLimit + ", " + iterationLimit + ", " + cacheSize);
            }
        }

        /** Kubernetes' defaults with DRAConsumableCapacity off. */
        public static Options defaults() {
            return new Options(false, DEFAULT_COST_LIMIT, (int) DEFAULT_COST_LIMIT, DEFAULT_CACHE_SIZE);
        }

        /** Kubernetes' defaults with the CEL features the gates enable (DRAConsumableCapacity). */
        public static Options from(FeatureGates gates) {
            return defaults().withConsumableCapacity(gates.enabled(FeatureGates.DRA_CONSUMABLE_CAPACITY));
        }

        public Options withConsumableCapacity(boolean enabled) {
            return new Options(enabled, costLimit, iterationLimit, cacheSize);
        }

        public Options withCostLimit(long limit) {
            return new Options(consumableCapacity, limit, iterationLimit, cacheSize);
        }

        public Options withIterationLimit(int limit) {
            return new Options(consumableCapacity, costLimit, limit, cacheSize);
        }

        public Options withCacheSize(int size) {
            return new Options(consumableCapacity, costLimit, iterationLimit, size);
        }
    }

    private final DraCelEnvironment environment;
    private final SelectorCache cache;

    private CelSelectorCompiler(Options options) {
        this.environment = new DraCelEnvironment(options);
        this.cache = new SelectorCache(options.cacheSize());
    }

    public static CelSelectorCompiler create(Options options) {
        return new CelSelectorCompiler(options);
    }

    /**
     * The API server's selector check: this compiler with the CEL features the gates enable, so that a selector the
     * allocator could not compile is rejected when the object is written, as kube-apiserver does.
     */
    public static ExpressionChecker expressionChecker(FeatureGates gates) {
        CelSelectorCompiler compiler = create(Options.from(gates));
        return expression -> {
            try {
                compiler.compile(expression);
                return Optional.empty();
            } catch (SelectorCompileException e) {
                return Optional.of(e.getMessage());
            }
        };
    }

    /**
     * @throws SelectorCompileException {@code Required value: expression} for null; {@code Too long: may not be more
     *     than 10240 bytes}; {@code compilation failed: ERROR: <input>:1:8: ...} for syntax and type errors;
     *     {@code must evaluate to bool or the unknown type, not ...}; {@code program instantiation failed: ...} for an
     *     invalid literal {@code find}/{@code findAll} pattern
     */
    @Override
    public CompiledSelector compile(String expression) throws SelectorCompileException {
        if (expression == null) {
            throw new SelectorCompileException("Required value: expression");
        }
        if (expression.getBytes(StandardCharsets.UTF_8).length > MAX_EXPRESSION_LENGTH) {
            throw new SelectorCompileException("Too long: may not be more than " + MAX_EXPRESSION_LENGTH + " bytes");
        }
        SelectorCache.Entry entry = cache.get(expression);
        if (entry == null) {
            entry = cache.putIfAbsent(expression, compileUncached(expression));
        }
        if (entry.error() != null) {
            throw new SelectorCompileException(entry.error());
        }
        return entry.selector();
    }

    private SelectorCache.Entry compileUncached(String expression) {
        try {
            return new SelectorCache.Entry(environment.compile(expression), null);
        } catch (SelectorCompileException invalid) {
            LOG.debug("CEL selector {} does not compile: {}", expression, invalid.getMessage());
            return new SelectorCache.Entry(null, invalid.getMessage());
        }
    }
}
