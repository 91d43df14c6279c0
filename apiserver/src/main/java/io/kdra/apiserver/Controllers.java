package io.kdra.apiserver;

import io.kdra.apiserver.registry.Registry;

/** The background work of the control plane that lives in the API server here: none yet. */
final class Controllers implements AutoCloseable {

    Controllers(Registry registry) {
    }

    void start() {
    }

    @Override
    public void close() {
    }
}
