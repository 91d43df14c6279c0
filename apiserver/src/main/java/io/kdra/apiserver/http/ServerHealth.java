package io.kdra.apiserver.http;

import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the server can still serve. A {@link VirtualMachineError} (out of memory, stack overflow outside a parser
 * that guards its own depth) leaves locks, queues and half-written answers in an unknown state: from then on the
 * health endpoints fail, so a probe or a user sees it at once instead of requests that hang. The {@code kdra}
 * launcher also runs the JVM with {@code -XX:+ExitOnOutOfMemoryError}, which ends the process with a message.
 */
final class ServerHealth {

    private static final Logger LOG = LoggerFactory.getLogger(ServerHealth.class);

    private final AtomicReference<String> failure = new AtomicReference<>();

    /** Records the first fatal error; later ones are only logged. */
    void fatal(Throwable error) {
        if (failure.compareAndSet(null, error.toString())) {
            LOG.error("the API server is broken and reports it on /readyz, /livez and /healthz", error);
        }
    }

    /** @return why the server is broken, or null while it is healthy */
    String failure() {
        return failure.get();
    }
}
