package io.kdra.cluster.runtime;

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
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessRuntimeTest {

    private static final Duration LONG = Duration.ofSeconds(30);
    private static final String UID = "uid-1";

    @TempDir
    Path root;

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService pumps = Executors.newCachedThreadPool();
    private ProcessRuntime runtime;

    @BeforeEach
    void setUp() {
        runtime = new ProcessRuntime(root.resolve("cdi"), root.resolve("containers"),
                new SimulatedCgroups(root.resolve("cgroup")), timers, pumps);
    }

    @AfterEach
    void tearDown() {
        runtime.close();
        timers.shutdownNow();
        pumps.shutdownNow();
    }

    static ContainerConfig config(String container, int attempt, List<String> command) {
        return config(container, attempt, command, Map.of(), List.of());
    }

    static ContainerConfig config(String container, int attempt, List<String> command, Map<String, String> env,
            List<String> devices) {
        return new ContainerConfig(new PodContainer("ns", "pod", container), UID, attempt, "busybox", command, env,
                null, devices, List.of(), null);
    }

    static List<String> sh(String script) {
        return List.of("sh", "-c", script);
    }

    private LocalContainer start(ContainerConfig config) throws ContainerStartException {
        return (LocalContainer) runtime.start(config);
    }

    private String log(String container, LogOptions options) throws Exception {
        try (InputStream in = runtime.logs(new PodContainer("ns", "pod", container), options)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private String log(String container) throws Exception {
        return log(container, LogOptions.ALL);
    }

    private void awaitLog(String container, String text) {
        await().atMost(LONG).until(() -> log(container).contains(text));
    }

    private Path home(String container) {
        return root.resolve("containers").resolve(UID).resolve(container).resolve("home");
    }

    private void writeSpec(String name, String content) throws IOException {
        Files.createDirectories(root.resolve("cdi"));
        Files.writeString(root.resolve("cdi").resolve(name), content);
    }

    @Test
    void theContainerGetsThePodsAndTheCdiEnvironmentCdiLast() throws Exception {
        writeSpec("driver.json", """
                {"cdiVersion":"0.3.0","kind":"test.example.com/test",
                 "devices":[{"name":"claim-1","containerEdits":{"env":["FROM_CDI=yes","SHARED=cdi"],
                   "mounts":[{"hostPath":"/opt/x","containerPath":"/x"}],"deviceNodes":[{"path":"/dev/x"}]}}]}
                """);

        LocalContainer container = start(config("app", 0, List.of("env"), Map.of("FROM_POD", "yes", "SHARED", "pod"),
                List.of("test.example.com/test=claim-1")));

        assertThat(container.exit().get(30, TimeUnit.SECONDS)).isZero();
        await().atMost(LONG).untilAsserted(() -> assertThat(log("app")).contains("FROM_POD=yes\n",
                "FROM_CDI=yes\n", "SHARED=cdi\n", "HOSTNAME=pod\n", "HOME=" + home("app") + "\n", "PATH="));
        String view = Files.readString(home("app").resolve(".kdra/cdi.json"));
        assertThat(view).contains("\"devices\":[\"test.example.com/test=claim-1\"]", "\"containerPath\":\"/x\"",
                "\"path\":\"/dev/x\"");
    }

    @Test
    void anUnresolvableCdiDeviceFailsTheStartWithContainerdsMessage() {
        assertThatThrownBy(() -> runtime.start(config("app", 0, List.of("true"), Map.of(),
                List.of("test.example.com/test=missing"))))
                .isInstanceOf(ContainerStartException.class)
                .hasMessage("failed to create containerd container: CDI device injection failed: "
                        + "unresolvable CDI devices test.example.com/test=missing");
        assertThat(runtime.running()).isEmpty();
    }

    @Test
    void aCommandThatIsNotFoundFailsTheStart() {
        assertThatThrownBy(() -> runtime.start(config("app", 0, List.of("no-such-command-kdra"))))
                .isInstanceOf(ContainerStartException.class)
                .hasMessageContaining("exec: \"no-such-command-kdra\": executable file not found in $PATH");
    }

    @Test
    void theExitCodeIsTheProcesses() throws Exception {
        assertThat(start(config("app", 0, sh("exit 3"))).exit().get(30, TimeUnit.SECONDS)).isEqualTo(3);
    }

    @Test
    void stopSendsSigtermWhichAProcessMayHandle() throws Exception {
        LocalContainer container = start(config("app", 0,
                sh("trap 'echo bye; exit 7' TERM; sleep 1000 & echo ready; wait")));
        awaitLog("app", "ready");
        List<ProcessHandle> children = container.process().descendants().toList();

        container.stop(LONG);

        assertThat(container.exit().get(30, TimeUnit.SECONDS)).isEqualTo(7);
        awaitLog("app", "bye");
        await().atMost(LONG).until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
    }

    @Test
    void aProcessWithoutHandlerEndsWith143() throws Exception {
        LocalContainer container = start(config("app", 0, List.of("sleep", "1000")));

        container.stop(LONG);

        assertThat(container.exit().get(30, TimeUnit.SECONDS)).isEqualTo(143);
    }

    @Test
    void aProcessIgnoringSigtermIsKilledAfterTheGracePeriod() throws Exception {
        LocalContainer container = start(config("app", 0,
                sh("trap '' TERM; echo ready; while true; do sleep 1; done")));
        awaitLog("app", "ready");

        container.stop(Duration.ofMillis(200));

        assertThat(container.exit().get(30, TimeUnit.SECONDS)).isEqualTo(137);
    }

    @Test
    void theWholeProcessTreeDiesWithTheContainer() throws Exception {
        LocalContainer container = start(config("app", 0,
                sh("sleep 1000 & (sleep 1000 & wait) & echo ready; wait")));
        awaitLog("app", "ready");
        await().atMost(LONG).until(() -> container.process().descendants().count() >= 3);
        List<ProcessHandle> tree = container.process().descendants().toList();

        container.stop(LONG);

        container.exit().get(30, TimeUnit.SECONDS);
        await().atMost(LONG).until(() -> tree.stream().noneMatch(ProcessHandle::isAlive));
    }

    @Test
    void logsServeAllTailLimitAndTimestamps() throws Exception {
        start(config("app", 0, sh("echo one; echo two; echo three"))).exit().get(30, TimeUnit.SECONDS);
        awaitLog("app", "three");

        assertThat(log("app")).isEqualTo("one\ntwo\nthree\n");
        assertThat(log("app", new LogOptions(false, false, 2, -1, null, false))).isEqualTo("two\nthree\n");
        assertThat(log("app", new LogOptions(false, false, 0, -1, null, false))).isEmpty();
        assertThat(log("app", new LogOptions(false, false, 10, -1, null, false))).isEqualTo("one\ntwo\nthree\n");
        assertThat(log("app", new LogOptions(false, false, -1, 6, null, false))).isEqualTo("one\ntw");
        assertThat(log("app", new LogOptions(false, false, 1, 3, null, false))).isEqualTo("thr");
        assertThat(log("app", new LogOptions(false, false, -1, -1, null, true)).lines())
                .hasSize(3)
                .allMatch(line -> line.matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d{1,9})?Z \\w+"))
                .last().asString().endsWith(" three");
    }

    @Test
    void logsSinceATimeLeaveOutEarlierLines() throws Exception {
        LocalContainer container = start(config("app", 0,
                sh("mkfifo go; echo early; read x < go; echo late")));
        awaitLog("app", "early");
        String stamped = log("app", new LogOptions(false, false, -1, -1, null, true));
        Instant early = Instant.parse(stamped.substring(0, stamped.indexOf(' ')));

        Files.writeString(home("app").resolve("go"), "\n");
        container.exit().get(30, TimeUnit.SECONDS);
        awaitLog("app", "late");

        assertThat(log("app", new LogOptions(false, false, -1, -1, early.plusNanos(1), false))).isEqualTo("late\n");
        assertThat(log("app", new LogOptions(false, false, -1, -1, early, false))).isEqualTo("early\nlate\n");
    }

    @Test
    void followingALogEndsWhenTheContainerHasEndedAndItsOutputIsRead() throws Exception {
        LocalContainer container = start(config("app", 0,
                sh("mkfifo go; echo first; read x < go; echo second")));
        awaitLog("app", "first");
        InputStream follow = runtime.logs(new PodContainer("ns", "pod", "app"),
                new LogOptions(true, false, -1, -1, null, false));
        CompletableFuture<String> all = CompletableFuture.supplyAsync(() -> {
            try (follow) {
                return new String(follow.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });

        Files.writeString(home("app").resolve("go"), "\n");

        assertThat(all.get(30, TimeUnit.SECONDS)).isEqualTo("first\nsecond\n");
        assertThat(container.exit()).isDone();
    }

    @Test
    void closingAFollowedLogEndsIt() throws Exception {
        start(config("app", 0, List.of("sleep", "1000")));
        InputStream follow = runtime.logs(new PodContainer("ns", "pod", "app"),
                new LogOptions(true, false, -1, -1, null, false));
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> {
            try {
                return follow.read();
            } catch (IOException e) {
                return -2;
            }
        });

        follow.close();

        assertThat(read.get(30, TimeUnit.SECONDS)).isEqualTo(-1);
    }

    @Test
    void previousServesTheAttemptBeforeTheLatest() throws Exception {
        assertThatThrownBy(() -> log("app", new LogOptions(false, true, -1, -1, null, false)))
                .isInstanceOf(ContainerUnavailableException.class)
                .hasMessage("previous terminated container \"app\" in pod \"pod\" not found");
        start(config("app", 0, sh("echo zero"))).exit().get(30, TimeUnit.SECONDS);
        awaitLog("app", "zero");
        assertThatThrownBy(() -> log("app", new LogOptions(false, true, -1, -1, null, false)))
                .isInstanceOf(ContainerUnavailableException.class);

        start(config("app", 1, sh("echo one"))).exit().get(30, TimeUnit.SECONDS);
        awaitLog("app", "one");
        assertThat(log("app", new LogOptions(false, true, -1, -1, null, false))).isEqualTo("zero\n");
        assertThat(log("app")).isEqualTo("one\n");

        start(config("app", 2, sh("echo two"))).exit().get(30, TimeUnit.SECONDS);
        awaitLog("app", "two");
        assertThat(log("app", new LogOptions(false, true, -1, -1, null, false))).isEqualTo("one\n");
        Path containerDirectory = home("app").getParent();
        await().atMost(LONG).until(() -> !Files.exists(containerDirectory.resolve("0.log")));
        assertThat(containerDirectory.resolve("1.log")).exists();
    }

    @Test
    void logsOfAContainerNeverStartedAreUnavailable() {
        assertThatThrownBy(() -> log("app"))
                .isInstanceOf(ContainerUnavailableException.class)
                .hasMessage("container \"app\" in pod \"pod\" is waiting to start: ContainerCreating");
    }

    @Test
    void execRunsInTheContainersEnvironmentWithStdinStdoutStderrAndExitCode() throws Exception {
        writeSpec("driver.yaml", """
                cdiVersion: 0.3.0
                kind: test.example.com/test
                devices:
                - name: claim-1
                  containerEdits: {env: [FROM_CDI=yes]}
                """);
        start(config("app", 0, List.of(), Map.of("FROM_POD", "yes"), List.of("test.example.com/test=claim-1")));
        PodContainer target = new PodContainer("ns", "pod", "app");

        Process env = runtime.exec(target, List.of("sh", "-c", "env; pwd; echo oops >&2; exit 4"));
        String out = new String(env.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(env.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(env.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(env.exitValue()).isEqualTo(4);
        assertThat(out).contains("FROM_POD=yes\n", "FROM_CDI=yes\n", home("app") + "\n");
        assertThat(err).isEqualTo("oops\n");

        Process cat = runtime.exec(target, List.of("cat"));
        try (OutputStream stdin = cat.getOutputStream()) {
            stdin.write("hello\n".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(new String(cat.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("hello\n");
        assertThat(cat.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void theContainerAndItsExecdCommandsReachCdiMountsAtTheirContainerPaths() throws Exception {
        Path mounted = root.resolve("host/metadata.json");
        Files.createDirectories(mounted.getParent());
        Files.writeString(mounted, "{\"mounted\":true}\n");
        writeSpec("metadata.json", """
                {"cdiVersion":"0.5.0","kind":"test.example.com/metadata",
                 "devices":[{"name":"uid_req","containerEdits":{"mounts":[{"hostPath":"%s",
                   "containerPath":"/var/run/attributes/req/metadata.json","options":["ro","bind"]}]}}]}
                """.formatted(mounted));

        LocalContainer container = start(config("app", 0, sh("cat /var/run/attributes/req/metadata.json"),
                Map.of(), List.of("test.example.com/metadata=uid_req")));
        assertThat(container.exit().get(30, TimeUnit.SECONDS)).isZero();
        awaitLog("app", "{\"mounted\":true}");

        start(config("idle", 0, List.of(), Map.of(), List.of("test.example.com/metadata=uid_req")));
        Process cat = runtime.exec(new PodContainer("ns", "pod", "idle"),
                List.of("cat", "/var/run/attributes/req/metadata.json"));
        assertThat(new String(cat.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .isEqualTo("{\"mounted\":true}\n");
        assertThat(cat.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Process unmounted = runtime.exec(new PodContainer("ns", "pod", "idle"),
                List.of("cat", "/var/run/attributes/other/metadata.json"));
        assertThat(unmounted.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(unmounted.exitValue()).as("a path nobody mounted stays missing").isNotZero();
    }

    @Test
    void aContainerReadsItsCgroupAndOomScoreAdjAndAResizeRewritesThem() throws Exception {
        Path cgroup = root.resolve("cgroup").resolve("kubepods").resolve("burstable").resolve("pod" + UID)
                .resolve("app");
        LinuxResources resources = new LinuxResources(1024, 200_000, 2L << 30, Map.of("2MB", 0L), 907);
        ContainerConfig plain = config("app", 0, List.of());
        start(new ContainerConfig(plain.id(), UID, 0, "busybox", List.of(), Map.of(), null, List.of(), List.of(),
                new ContainerConfig.Cgroup(cgroup, resources)));
        PodContainer target = new PodContainer("ns", "pod", "app");

        assertThat(execOutput(target, "head -n 1 /sys/fs/cgroup/cpu.weight; head -n 1 /sys/fs/cgroup/cpu.max;"
                + " cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/hugetlb.2MB.max /proc/1/oom_score_adj"
                + " /proc/self/oom_score_adj"))
                .isEqualTo("100\n200000 100000\n2147483648\n0\n907\n907\n");
        assertThat(Files.readString(cgroup.resolve("cgroup.controllers"))).contains("cpu", "memory", "hugetlb");

        runtime.updateResources(target, new LinuxResources(2048, -1, 0, Map.of("2MB", 0L), 907));
        assertThat(execOutput(target, "head -n 1 /sys/fs/cgroup/cpu.max; cat /sys/fs/cgroup/memory.max"))
                .isEqualTo("max 100000\nmax\n");
    }

    private String execOutput(PodContainer target, String script) throws Exception {
        Process process = runtime.exec(target, sh(script));
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    @Test
    void execNeedsARunningContainer() throws Exception {
        PodContainer target = new PodContainer("ns", "pod", "app");
        assertThatThrownBy(() -> runtime.exec(target, List.of("true")))
                .isInstanceOf(ContainerNotFoundException.class)
                .hasMessage("container not found (\"app\")");

        start(config("app", 0, List.of("true"))).exit().get(30, TimeUnit.SECONDS);

        assertThatThrownBy(() -> runtime.exec(target, List.of("true")))
                .isInstanceOf(ContainerNotFoundException.class);
        assertThatThrownBy(() -> runtime.exec(target, List.of("true")))
                .isInstanceOf(ContainerNotFoundException.class);
    }

    @Test
    void execdCommandsDieWithTheContainer() throws Exception {
        LocalContainer container = start(config("app", 0, List.of()));
        Process sleeper = runtime.exec(new PodContainer("ns", "pod", "app"), List.of("sleep", "1000"));

        container.stop(LONG);

        assertThat(sleeper.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aContainerWithoutCommandIdlesUntilStoppedAndExitsZero() throws Exception {
        LocalContainer pause = start(config("pause", 0, List.of()));
        InputStream follow = runtime.logs(new PodContainer("ns", "pod", "pause"),
                new LogOptions(true, false, -1, -1, null, false));
        CompletableFuture<byte[]> all = CompletableFuture.supplyAsync(() -> {
            try (follow) {
                return follow.readAllBytes();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });

        assertThat(pause.process()).isNull();
        assertThat(runtime.running()).containsExactly(pause);
        assertThat(log("pause")).isEmpty();

        pause.stop(LONG);

        assertThat(pause.exit().get(30, TimeUnit.SECONDS)).isZero();
        assertThat(all.get(30, TimeUnit.SECONDS)).isEmpty();
        assertThat(Files.readString(home("pause").resolve(".kdra/cdi.json"))).contains("\"devices\":[]");
    }

    @Test
    void runningListsLiveInstancesOnly() throws Exception {
        LocalContainer sleeper = start(config("sleeper", 0, List.of("sleep", "1000")));
        LocalContainer quick = start(config("quick", 0, List.of("true")));
        quick.exit().get(30, TimeUnit.SECONDS);

        assertThat(runtime.running()).containsExactly(sleeper);

        sleeper.stop(Duration.ZERO);
        sleeper.exit().get(30, TimeUnit.SECONDS);
        assertThat(runtime.running()).isEmpty();
    }

    @Test
    void removingAPodKillsItAndRemovesItsFiles() throws Exception {
        LocalContainer sleeper = start(config("sleeper", 0, List.of("sleep", "1000")));

        runtime.removePod(UID);

        assertThat(sleeper.exit().get(30, TimeUnit.SECONDS)).isEqualTo(137);
        await().atMost(LONG).until(() -> !Files.exists(root.resolve("containers").resolve(UID)));
        assertThatThrownBy(() -> log("sleeper")).isInstanceOf(ContainerUnavailableException.class);
        assertThat(runtime.running()).isEmpty();
    }

    @Test
    void closeLeavesNoProcessAndNoFiles() throws Exception {
        LocalContainer sleeper = start(config("sleeper", 0, List.of("sleep", "1000")));
        LocalContainer tree = start(config("tree", 0, sh("sleep 1000 & echo ready; wait")));
        start(config("pause", 0, List.of()));
        Process exec = runtime.exec(new PodContainer("ns", "pod", "pause"), List.of("sleep", "1000"));
        awaitLog("tree", "ready");
        List<ProcessHandle> processes = new ArrayList<>();
        processes.add(sleeper.process().toHandle());
        processes.add(tree.process().toHandle());
        processes.addAll(tree.process().descendants().toList());
        processes.add(exec.toHandle());

        runtime.close();

        await().atMost(LONG).until(() -> processes.stream().noneMatch(ProcessHandle::isAlive));
        assertThat(root.resolve("containers")).doesNotExist();
        assertThatThrownBy(() -> runtime.start(config("late", 0, List.of())))
                .isInstanceOf(ContainerStartException.class);
    }
}
