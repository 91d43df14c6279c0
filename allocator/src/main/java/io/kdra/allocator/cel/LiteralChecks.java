package io.kdra.allocator.cel;

import com.google.re2j.PatternSyntaxException;
import dev.cel.bundle.Cel;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.ast.CelExpr.CelCall;
import dev.cel.common.navigation.CelNavigableAst;
import dev.cel.common.navigation.CelNavigableExpr;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypes;
import dev.cel.common.types.ListType;
import dev.cel.validator.CelAstValidator;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Compile-time checks Kubernetes' environment makes and cel-java does not: literal {@code matches} patterns must be
 * valid RE2 (cel-go's {@code ValidateRegexLiterals}), and the list functions accept only the element types upstream
 * declares overloads for (see {@link ListsLibrary}).
 */
final class LiteralChecks implements CelAstValidator {

    @Override
    public void validate(CelNavigableAst ast, Cel cel, IssuesFactory issues) {
        calls(ast.getAst()).forEach(call -> {
            CelCall callExpr = call.expr().call();
            if (callExpr.function().equals("matches") && !callExpr.args().isEmpty()) {
                CelExpr pattern = callExpr.args().get(callExpr.args().size() - 1);
                constantString(pattern).flatMap(LiteralChecks::regexError)
                        .ifPresent(error -> issues.addError(pattern.id(), "invalid matches argument"));
            }
            Set<?> elementKinds = ListsLibrary.ELEMENT_KINDS.get(callExpr.function());
            if (elementKinds != null && callExpr.target().isPresent()) {
                CelType receiver = ast.getAst().getType(callExpr.target().get().id()).orElse(null);
                if (receiver instanceof ListType list && !elementKinds.contains(list.elemType().kind())) {
                    issues.addError(call.id(), "found no matching overload for '" + callExpr.function()
                            + "' applied to '" + CelTypes.format(receiver) + ".()'");
                }
            }
        });
    }

    /**
     * The error for a literal {@code find}/{@code findAll} pattern that is not valid RE2; Kubernetes reports it when
     * the program is built.
     */
    static Optional<String> findPatternError(CelAbstractSyntaxTree ast) {
        return calls(ast)
                .map(call -> call.expr().call())
                .filter(call -> call.function().equals("find") || call.function().equals("findAll"))
                .map(call -> call.args().isEmpty() ? Optional.<String>empty() : constantString(call.args().get(0)))
                .flatMap(Optional::stream)
                .map(LiteralChecks::regexError)
                .flatMap(Optional::stream)
                .findFirst();
    }

    private static Stream<CelNavigableExpr> calls(CelAbstractSyntaxTree ast) {
        return CelNavigableAst.fromAst(ast).getRoot().allNodes()
                .filter(node -> node.expr().getKind() == CelExpr.ExprKind.Kind.CALL);
    }

    private static Optional<String> constantString(CelExpr expr) {
        if (expr.getKind() != CelExpr.ExprKind.Kind.CONSTANT
                || expr.constant().getKind() != CelConstant.Kind.STRING_VALUE) {
            return Optional.empty();
        }
        return Optional.of(expr.constant().stringValue());
    }

    private static Optional<String> regexError(String pattern) {
        try {
            RegexLibrary.compile(pattern);
            return Optional.empty();
        } catch (PatternSyntaxException invalid) {
            return Optional.of(invalid.getMessage());
        }
    }
}
