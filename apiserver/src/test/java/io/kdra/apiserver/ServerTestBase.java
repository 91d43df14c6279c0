package io.kdra.apiserver;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** One API server with default settings per test class. */
abstract class ServerTestBase {

    static ServerFixture fixture;

    @BeforeAll
    static void startServer() {
        fixture = new ServerFixture();
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }
}
