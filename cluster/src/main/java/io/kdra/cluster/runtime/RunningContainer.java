package io.kdra.cluster.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/** One started container instance. */
public interface RunningContainer {

    /** What the instance was started with. */
    ContainerConfig config();

    Instant startedAt();

    /** Completes with the exit code when the instance has ended (137 after a kill, 143 after a SIGTERM exit). */
    CompletableFuture<Integer> exit();

    /**
     * Stops the instance as the kubelet's killContainer does: SIGTERM, then SIGKILL when it has not ended within the
     * grace period. Returns at once; {@link #exit()} completes when it is gone.
     */
    void stop(Duration gracePeriod);
}
