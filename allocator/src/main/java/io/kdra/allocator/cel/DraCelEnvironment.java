package io.kdra.allocator.cel;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.CelTypes;
import dev.cel.common.types.StructType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.extensions.CelStringExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import dev.cel.runtime.CelStandardFunctions;
import dev.cel.runtime.RuntimeEquality;
import dev.cel.runtime.RuntimeHelpers;
import dev.cel.runtime.standard.InOperator;
import dev.cel.validator.CelValidator;
import dev.cel.validator.CelValidatorFactory;
import java.util.EnumSet;

/**
 * Kubernetes' CEL environment for DRA device selectors, built on cel-java: the base environment's language settings
 * (optional syntax, cross-type numeric comparisons, homogeneous literals), standard macros, {@code cel.bind}, the
 * strings (with {@code format}), sets and two-variable comprehension extensions, and Kubernetes' quantity, semver,
 * list, regex, IP, CIDR and URL libraries, plus the {@code device} variable. Thread-safe.
 */
final class DraCelEnvironment {

    private final CelSelectorCompiler.Options options;
    private final CelCompiler compiler;
    private final CelRuntime runtime;
    private final CelValidator validator;

    DraCelEnvironment(CelSelectorCompiler.Options options) {
        this.options = options;
        CelOptions celOptions = CelOptions.current()
                .enableOptionalSyntax(true)
                .enableHeterogeneousNumericComparisons(true)
                .enableHomogeneousLiterals(true)
                .evaluateCanonicalTypesToNativeValues(true)
                .comprehensionMaxIterations(options.iterationLimit())
                .build();
        // Kubernetes enables strings extension version 2, which predates reverse().
        CelStringExtensions strings = CelExtensions.strings(
                EnumSet.complementOf(EnumSet.of(CelStringExtensions.Function.REVERSE)));
        QuantityLibrary quantity = new QuantityLibrary();
        SemverLibrary semver = new SemverLibrary();
        ListsLibrary lists = new ListsLibrary(celOptions);
        RegexLibrary regex = new RegexLibrary();
        StringFormatLibrary format = new StringFormatLibrary();
        IpLibrary ip = new IpLibrary();
        CidrLibrary cidr = new CidrLibrary();
        UrlLibrary url = new UrlLibrary();
        StructType deviceType = DeviceVariable.type(options.consumableCapacity());
        this.compiler = CelCompilerFactory.standardCelCompilerBuilder()
                .setOptions(celOptions)
                .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                .setTypeProvider(DeviceVariable.typeProvider(deviceType))
                .addVar(DeviceVariable.NAME, deviceType)
                .addLibraries(strings, CelExtensions.optional(), CelExtensions.bindings(),
                        CelExtensions.sets(celOptions), CelExtensions.comprehensions(),
                        quantity, semver, lists, regex, format, ip, cidr, url)
                .build();
        this.runtime = CelRuntimeFactory.standardCelRuntimeBuilder()
                .setOptions(celOptions)
                .setStandardEnvironmentEnabled(false)
                .setStandardFunctions(CelStandardFunctions.newBuilder()
                        .filterFunctions((function, overload) -> overload != InOperator.InOverload.IN_MAP)
                        .build())
                .addFunctionBindings(DomainMap.inMapBinding(
                        RuntimeEquality.create(RuntimeHelpers.create(), celOptions)))
                .addLibraries(strings, CelExtensions.optional(), CelExtensions.sets(celOptions),
                        CelExtensions.comprehensions(), quantity, semver, lists, regex, format, ip, cidr, url)
                .build();
        this.validator = CelValidatorFactory.standardCelValidatorBuilder(compiler, runtime)
                .addAstValidators(new LiteralChecks())
                .build();
    }

    /** Parses, type-checks and plans an expression, with Kubernetes' error texts. */
    CompiledSelector compile(String expression) throws SelectorCompileException {
        CelAbstractSyntaxTree ast;
        try {
            ast = compiler.compile(expression).getAst();
        } catch (CelValidationException invalid) {
            throw new SelectorCompileException("compilation failed: " + invalid.getMessage(), invalid);
        }
        CelValidationResult validation = validator.validate(ast);
        if (validation.hasError()) {
            throw new SelectorCompileException("compilation failed: " + validation.getErrorString());
        }
        CelKind resultKind = ast.getResultType().kind();
        if (resultKind != CelKind.BOOL && resultKind != CelKind.DYN) {
            throw new SelectorCompileException("must evaluate to bool or the unknown type, not "
                    + CelTypes.format(ast.getResultType()));
        }
        String patternError = LiteralChecks.findPatternError(ast).orElse(null);
        if (patternError != null) {
            throw new SelectorCompileException("program instantiation failed: " + patternError);
        }
        try {
            return new CelCompiledSelector(expression, runtime.createProgram(ast), options);
        } catch (CelEvaluationException planningFailure) {
            throw new SelectorCompileException("program instantiation failed: " + planningFailure.getMessage(),
                    planningFailure);
        }
    }
}
