package io.kdra.apiserver;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** A test class's API server over https (kubectl sends its token only there) and a kubectl configured for it. */
abstract class KubectlAgainstServer {

    @TempDir
    static Path dir;
    static ServerFixture fixture;
    static Kubectl kubectl;

    @BeforeAll
    static void startServer() throws IOException {
        fixture = new ServerFixture(ApiServerConfig.defaults().withTls(true));
        kubectl = new Kubectl(fixture.server.writeKubeconfig(dir.resolve("kubeconfig")));
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }
}
