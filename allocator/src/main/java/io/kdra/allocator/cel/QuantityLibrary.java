package io.kdra.allocator.cel;

import io.kdra.kube.Quantity;
import static dev.cel.common.CelFunctionDecl.newFunctionDeclaration;
import static dev.cel.common.CelOverloadDecl.newGlobalOverload;
import static dev.cel.common.CelOverloadDecl.newMemberOverload;

import dev.cel.checker.CelCheckerBuilder;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompilerLibrary;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntimeBuilder;
import dev.cel.runtime.CelRuntimeLibrary;
import io.kdra.kube.Quantity.Format;
import java.util.function.BinaryOperator;

/**
 * Kubernetes' CEL quantity library ({@code k8s.io/apiserver/pkg/cel/library/quantity.go}): the same functions,
 * overload ids, call styles and error texts. {@code sign} is a global function there ({@code sign(q)}), not a member.
 */
final class QuantityLibrary implements CelCompilerLibrary, CelRuntimeLibrary {

    static final OpaqueType TYPE = OpaqueType.create("kubernetes.Quantity");

    @Override
    public void setCheckerOptions(CelCheckerBuilder checker) {
        checker.addFunctionDeclarations(
                newFunctionDeclaration("quantity",
                        newGlobalOverload("string_to_quantity", TYPE, SimpleType.STRING)),
                newFunctionDeclaration("isQuantity",
                        newGlobalOverload("is_quantity_string", SimpleType.BOOL, SimpleType.STRING)),
                newFunctionDeclaration("sign",
                        newGlobalOverload("quantity_sign", SimpleType.INT, TYPE)),
                newFunctionDeclaration("asApproximateFloat",
                        newMemberOverload("quantity_get_float", SimpleType.DOUBLE, TYPE)),
                newFunctionDeclaration("asInteger",
                        newMemberOverload("quantity_get_int", SimpleType.INT, TYPE)),
                newFunctionDeclaration("isInteger",
                        newMemberOverload("quantity_is_integer", SimpleType.BOOL, TYPE)),
                newFunctionDeclaration("add",
                        newMemberOverload("quantity_add", TYPE, TYPE, TYPE),
                        newMemberOverload("quantity_add_int", TYPE, TYPE, SimpleType.INT)),
                newFunctionDeclaration("sub",
                        newMemberOverload("quantity_sub", TYPE, TYPE, TYPE),
                        newMemberOverload("quantity_sub_int", TYPE, TYPE, SimpleType.INT)));
        checker.addFunctionDeclarations(ComparisonFunctions.declarations("quantity", TYPE));
    }

    @Override
    public void setRuntimeOptions(CelRuntimeBuilder runtime) {
        runtime.addFunctionBindings(
                CelFunctionBinding.from("string_to_quantity", String.class, QuantityLibrary::parse),
                CelFunctionBinding.from("is_quantity_string", String.class,
                        text -> LibraryFunctionException.accepts(QuantityLibrary::parse, text)),
                CelFunctionBinding.from("quantity_sign", Quantity.class, q -> (long) q.signum()),
                CelFunctionBinding.from("quantity_get_float", Quantity.class, Quantity::approximateDouble),
                CelFunctionBinding.from("quantity_get_int", Quantity.class, q -> q.asLong().orElseThrow(
                        () -> new LibraryFunctionException("cannot convert value to integer"))),
                CelFunctionBinding.from("quantity_is_integer", Quantity.class, q -> q.asLong().isPresent()),
                CelFunctionBinding.from("quantity_add", Quantity.class, Quantity.class,
                        (a, b) -> arithmetic(Quantity::add, a, b)),
                CelFunctionBinding.from("quantity_add_int", Quantity.class, Long.class,
                        (a, b) -> arithmetic(Quantity::add, a, Quantity.of(b, Format.DECIMAL_EXPONENT))),
                CelFunctionBinding.from("quantity_sub", Quantity.class, Quantity.class,
                        (a, b) -> arithmetic(Quantity::subtract, a, b)),
                CelFunctionBinding.from("quantity_sub_int", Quantity.class, Long.class,
                        (a, b) -> arithmetic(Quantity::subtract, a, Quantity.of(b, Format.DECIMAL_EXPONENT))));
        runtime.addFunctionBindings(ComparisonFunctions.bindings("quantity", Quantity.class));
    }

    private static Quantity parse(String text) {
        try {
            return Quantity.parse(text);
        } catch (NumberFormatException invalid) {
            throw new LibraryFunctionException(invalid.getMessage());
        }
    }

    private static Quantity arithmetic(BinaryOperator<Quantity> operation, Quantity left, Quantity right) {
        try {
            return operation.apply(left, right);
        } catch (ArithmeticException tooLarge) {
            throw new LibraryFunctionException(tooLarge.getMessage());
        }
    }
}
