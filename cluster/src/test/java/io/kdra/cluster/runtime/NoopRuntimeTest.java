package io.kdra.cluster.runtime;

import static io.kdra.cluster.runtime.ProcessRuntimeTest.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kdra.cluster.kubelet.server.ContainerStreams.ContainerNotFoundException;
import io.kdra.cluster.kubelet.server.ContainerStreams.ContainerUnavailableException;
import io.kdra.cluster.kubelet.server.ContainerStreams.PodContainer;
import io.kdra.cluster.kubelet.server.LogOptions;
import io.kdra.cluster.runtime.ContainerRuntime.ContainerStartException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NoopRuntimeTest {

    private static final PodContainer APP = new PodContainer("ns", "pod", "app");

    @TempDir
    Path root;

    private NoopRuntime runtime;

    @BeforeEach
    void setUp() throws IOException {
        Files.createDirectories(root.resolve("cdi"));
        Files.writeString(root.resolve("cdi").resolve("driver.json"), """
                {"cdiVersion":"0.3.0","kind":"test.example.com/test",
                 "devices":[{"name":"claim-1","containerEdits":{"env":["FROM_CDI=yes"]}}]}
                """);
        runtime = new NoopRuntime(root.resolve("cdi"), root.resolve("containers"),
                new SimulatedCgroups(root.resolve("cgroup")));
    }

    @AfterEach
    void tearDown() {
        runtime.close();
    }

    @Test
    void aContainerRunsAtOnceWhateverItsCommandAndExitsZeroWhenStopped() throws Exception {
        RunningContainer container = runtime.start(config("app", 0, List.of("false")));

        assertThat(runtime.running()).containsExactly(container);
        assertThat(container.exit()).isNotDone();

        container.stop(Duration.ofSeconds(30));

        assertThat(container.exit().get(30, TimeUnit.SECONDS)).isZero();
        assertThat(runtime.running()).isEmpty();
    }

    @Test
    void itsLogIsEmptyAndFollowingItEndsWhenItStops() throws Exception {
        RunningContainer container = runtime.start(config("app", 0, List.of("echo", "nothing")));
        InputStream follow = runtime.logs(APP, new LogOptions(true, false, -1, -1, null, true));
        CompletableFuture<byte[]> all = CompletableFuture.supplyAsync(() -> {
            try (follow) {
                return follow.readAllBytes();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });

        try (InputStream now = runtime.logs(APP, LogOptions.ALL)) {
            assertThat(now.readAllBytes()).isEmpty();
        }
        container.stop(Duration.ZERO);

        assertThat(all.get(30, TimeUnit.SECONDS)).isEmpty();
    }

    @Test
    void logsOfAContainerNotStartedOrWithoutAnEarlierInstanceAreUnavailable() throws Exception {
        assertThatThrownBy(() -> runtime.logs(APP, LogOptions.ALL))
                .isInstanceOf(ContainerUnavailableException.class)
                .hasMessage("container \"app\" in pod \"pod\" is waiting to start: ContainerCreating");

        runtime.start(config("app", 0, List.of()));

        assertThatThrownBy(() -> runtime.logs(APP, new LogOptions(false, true, -1, -1, null, false)))
                .isInstanceOf(ContainerUnavailableException.class)
                .hasMessage("previous terminated container \"app\" in pod \"pod\" not found");
    }

    @Test
    void cdiDevicesAreResolvedAndExecSeesTheirEnvironment() throws Exception {
        runtime.start(config("app", 0, List.of(), Map.of("FROM_POD", "yes"), List.of("test.example.com/test=claim-1")));

        Process env = runtime.exec(APP, List.of("env"));

        String out = new String(env.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(env.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("FROM_POD=yes\n", "FROM_CDI=yes\n", "HOSTNAME=pod\n");
        assertThatThrownBy(() -> runtime.start(config("other", 0, List.of(), Map.of(),
                List.of("test.example.com/test=claim-2"))))
                .isInstanceOf(ContainerStartException.class)
                .hasMessageEndingWith("unresolvable CDI devices test.example.com/test=claim-2");
    }

    @Test
    void execNeedsARunningContainer() throws Exception {
        RunningContainer container = runtime.start(config("app", 0, List.of()));
        container.stop(Duration.ZERO);

        assertThatThrownBy(() -> runtime.exec(APP, List.of("true")))
                .isInstanceOf(ContainerNotFoundException.class)
                .hasMessage("container not found (\"app\")");
    }

    @Test
    void closeKillsExecdCommandsAndRemovesTheDirectory() throws Exception {
        runtime.start(config("app", 0, List.of()));
        Process sleeper = runtime.exec(APP, List.of("sleep", "1000"));

        runtime.close();

        await().atMost(Duration.ofSeconds(30)).until(() -> !sleeper.isAlive());
        assertThat(root.resolve("containers")).doesNotExist();
        assertThat(runtime.running()).isEmpty();
    }
}
