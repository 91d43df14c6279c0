package io.kdra.allocator.cel;

import io.fabric8.kubernetes.api.model.resource.v1.Device;

/** A compiled device selector; thread-safe. */
public interface CompiledSelector {

    /** The expression text this selector was compiled from. */
    String expression();

    /**
     * Evaluates the selector against one device published by {@code driver}.
     *
     * @throws SelectorEvaluationException on a CEL runtime error, an exceeded cost budget or a non-bool result; the
     *     allocator aborts the whole allocation with it
     */
    boolean matches(String driver, Device device) throws SelectorEvaluationException;
}
