package io.kdra.allocator;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A claim constraint checked while devices are picked. Constraints are monotonic: once a device is refused, more
 * devices never make it acceptable. Every successful {@link #add} is undone by exactly one {@link #remove} with the
 * same arguments, in reverse order.
 */
abstract sealed class ClaimConstraint {

    /** Requests the constraint covers; empty covers all. Entries are {@code req} or {@code req/sub}. */
    private final Set<String> requests;

    /** The fully qualified attribute name. */
    final String attribute;

    ClaimConstraint(List<String> requests, String attribute) {
        this.requests = Set.copyOf(requests);
        this.attribute = attribute;
    }

    /** Whether the device may join; if so, it is recorded. */
    final boolean add(RequestSpec spec, DeviceInfo device) {
        if (!appliesTo(spec)) {
            return true;
        }
        AttributeValue value = device.attribute(attribute);
        return value != null && accept(value);
    }

    final void remove(RequestSpec spec) {
        if (appliesTo(spec)) {
            forgetLast();
        }
    }

    abstract boolean accept(AttributeValue value);

    abstract void forgetLast();

    private boolean appliesTo(RequestSpec spec) {
        if (requests.isEmpty()) {
            return true;
        }
        if (spec.parentName == null) {
            return requests.contains(spec.name);
        }
        return requests.contains(spec.parentName) || requests.contains(spec.resultName);
    }

    /** matchAttribute: every device has the attribute with the value of the first device. */
    static final class MatchAttribute extends ClaimConstraint {
        private AttributeValue first;
        private int devices;

        MatchAttribute(List<String> requests, String attribute) {
            super(requests, attribute);
        }

        @Override
        boolean accept(AttributeValue value) {
            if (devices == 0) {
                first = value;
            } else if (!value.sameAs(first)) {
                return false;
            }
            devices++;
            return true;
        }

        @Override
        void forgetLast() {
            devices--;
        }
    }

    /** distinctAttribute: every device has the attribute, each with a different value. */
    static final class DistinctAttribute extends ClaimConstraint {
        private final List<AttributeValue> values = new ArrayList<>();

        DistinctAttribute(List<String> requests, String attribute) {
            super(requests, attribute);
        }

        @Override
        boolean accept(AttributeValue value) {
            for (AttributeValue taken : values) {
                if (taken.duplicates(value)) {
                    return false;
                }
            }
            values.add(value);
            return true;
        }

        @Override
        void forgetLast() {
            values.remove(values.size() - 1);
        }
    }
}
