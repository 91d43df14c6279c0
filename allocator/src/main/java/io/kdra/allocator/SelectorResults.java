package io.kdra.allocator;

import io.kdra.allocator.cel.CompiledSelector;
import io.kdra.allocator.cel.SelectorEvaluationException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The outcome of one selector expression on every device of an inventory. A device's attributes never change within
 * an inventory, so each expression runs at most once per device, whichever claim or request uses it.
 */
final class SelectorResults {

    private static final byte MATCH = 1;
    private static final byte NO_MATCH = 2;
    private static final byte ERROR = 3;

    /** Racy writes are harmless: every thread computes the same value for a slot. */
    private final byte[] outcomes;

    private final ConcurrentHashMap<Integer, String> errors = new ConcurrentHashMap<>();

    SelectorResults(int deviceCount) {
        outcomes = new byte[deviceCount];
    }

    boolean matches(CompiledSelector selector, DeviceInfo device) throws SelectorEvaluationException {
        byte outcome = outcomes[device.index];
        if (outcome == MATCH) {
            return true;
        }
        if (outcome == NO_MATCH) {
            return false;
        }
        if (outcome == ERROR) {
            String message = errors.get(device.index);
            if (message != null) {
                throw new SelectorEvaluationException(message);
            }
        }
        try {
            boolean matches = selector.matches(device.slice.driver, device.device);
            outcomes[device.index] = matches ? MATCH : NO_MATCH;
            return matches;
        } catch (SelectorEvaluationException e) {
            errors.put(device.index, String.valueOf(e.getMessage()));
            outcomes[device.index] = ERROR;
            throw e;
        }
    }
}
