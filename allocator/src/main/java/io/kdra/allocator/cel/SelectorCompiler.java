package io.kdra.allocator.cel;

/**
 * Compiles DRA device selector expressions ({@code spec.selectors[].cel.expression}) in the Kubernetes CEL
 * environment. Implementations cache compiled expressions, so callers may compile the same text repeatedly.
 */
public interface SelectorCompiler {

    /**
     * @throws SelectorCompileException when the expression does not parse, does not type-check, is too long or does
     *     not yield a bool; the message names the problem as Kubernetes reports it
     */
    CompiledSelector compile(String expression) throws SelectorCompileException;
}
