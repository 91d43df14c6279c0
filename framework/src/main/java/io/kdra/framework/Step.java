package io.kdra.framework;

/** One piece of spec setup or cleanup; it may throw anything, the framework reports it against the spec. */
@FunctionalInterface
public interface Step {

    void run() throws Exception;
}
