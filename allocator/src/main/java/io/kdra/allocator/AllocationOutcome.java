package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import java.util.List;
import java.util.Objects;

/** What {@link StructuredAllocator#allocate} decided for one pod's claims on one node. */
public sealed interface AllocationOutcome {

    /** The status message the Kubernetes scheduler reports when the claims do not fit on a node. */
    String CANNOT_ALLOCATE_ALL_CLAIMS = "cannot allocate all claims";

    /** All claims fit: one result per claim, in the order of the claims. */
    record Allocated(List<AllocationResult> results) implements AllocationOutcome {
        public Allocated {
            results = List.copyOf(results);
        }
    }

    /** The claims do not fit on this node; another node or a later attempt may succeed. */
    record CannotAllocate(String reason) implements AllocationOutcome {
        public CannotAllocate {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
