package io.kdra.allocator.cel;

import static dev.cel.common.CelFunctionDecl.newFunctionDeclaration;
import static dev.cel.common.CelOverloadDecl.newMemberOverload;

import dev.cel.common.CelFunctionDecl;
import dev.cel.common.types.CelType;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelFunctionBinding;
import java.util.List;

/**
 * {@code isGreaterThan}, {@code isLessThan} and {@code compareTo} as Kubernetes declares them for quantities and
 * semantic versions: member overloads named {@code <prefix>_is_greater_than}, {@code <prefix>_is_less_than},
 * {@code <prefix>_compare_to}; {@code compareTo} yields -1, 0 or 1.
 */
final class ComparisonFunctions {

    private ComparisonFunctions() {
    }

    static List<CelFunctionDecl> declarations(String prefix, CelType type) {
        return List.of(
                newFunctionDeclaration("isGreaterThan",
                        newMemberOverload(prefix + "_is_greater_than", SimpleType.BOOL, type, type)),
                newFunctionDeclaration("isLessThan",
                        newMemberOverload(prefix + "_is_less_than", SimpleType.BOOL, type, type)),
                newFunctionDeclaration("compareTo",
                        newMemberOverload(prefix + "_compare_to", SimpleType.INT, type, type)));
    }

    static <T extends Comparable<T>> List<CelFunctionBinding> bindings(String prefix, Class<T> type) {
        return List.of(
                CelFunctionBinding.from(prefix + "_is_greater_than", type, type, (a, b) -> a.compareTo(b) > 0),
                CelFunctionBinding.from(prefix + "_is_less_than", type, type, (a, b) -> a.compareTo(b) < 0),
                CelFunctionBinding.from(prefix + "_compare_to", type, type,
                        (a, b) -> (long) Integer.signum(a.compareTo(b))));
    }
}
