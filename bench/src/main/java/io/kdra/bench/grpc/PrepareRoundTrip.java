package io.kdra.bench.grpc;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.stub.StreamObserver;
import io.kdra.bench.CpuMeter;
import io.kdra.kubelet.api.dra.v1.Claim;
import io.kdra.kubelet.api.dra.v1.DRAPluginGrpc;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.plugin.transport.PollingCalls;
import io.kdra.plugin.transport.PollingEventLoops;
import io.kdra.plugin.transport.UnixSocketChannels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * A unary NodePrepareResources round trip (v1) over a real Unix socket, as the kubelet makes it: one claim per call
 * (58 bytes; the answer is 140), the {@link BenchDriver} plugin with its two interceptors, claim check and serialized
 * driver. The subclasses say where the plugin runs. Each measures what the Go reference
 * ({@code shared/anchors/go-grpc-uds}) measures:
 *
 * <ul>
 *   <li>{@link #roundTrip}: one caller, one call at a time; SampleTime gives the median and p99;</li>
 *   <li>{@link #inFlight64}: one caller that keeps 64 asynchronous calls outstanding on one connection (as the kubelet
 *       multiplexes its calls); the score is calls completed per second;</li>
 *   <li>{@link #blockingThreads64}: 64 threads each making blocking calls on the shared connection.</li>
 * </ul>
 *
 * <p>After each iteration the benchmark prints the CPU time per completed call of client and server together, which
 * depends much less on what else runs on the machine than the scores do.
 */
@State(Scope.Benchmark)
public abstract class PrepareRoundTrip {

    private static final int IN_FLIGHT = 64;

    private Path directory;
    private EventLoopGroup clientLoop;
    private ManagedChannel channel;
    private DRAPluginGrpc.DRAPluginStub async;
    private NodePrepareResourcesRequest request;
    private final Semaphore inFlight = new Semaphore(IN_FLIGHT);
    private final AtomicLong failures = new AtomicLong();
    private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    /** Calls answered; counted by the client, since the server may be another process. */
    private final LongAdder completed = new LongAdder();
    private final CpuMeter cpu = new CpuMeter(this::serverProcessCpuNanos);
    private final StreamObserver<NodePrepareResourcesResponse> release = new StreamObserver<>() {
        @Override
        public void onNext(NodePrepareResourcesResponse response) {
            if (!response.getClaimsOrThrow(BenchDriver.CLAIM_UID).getError().isEmpty()) {
                failed(new IllegalStateException(response.toString()));
            }
        }

        @Override
        public void onError(Throwable error) {
            failed(error);
            inFlight.release();
        }

        @Override
        public void onCompleted() {
            completed.increment();
            inFlight.release();
        }
    };

    /**
     * Starts the plugin with its sockets under {@code directory}.
     *
     * @return the DRA socket
     */
    protected abstract Path startServer(Path directory) throws IOException;

    protected abstract void stopServer() throws Exception;

    /** CPU of a server in another process, in nanoseconds; 0 when it shares this JVM. */
    protected abstract long serverProcessCpuNanos();

    @Setup(Level.Trial)
    public void start() throws IOException {
        directory = Files.createTempDirectory(Path.of("/tmp"), "kd-bench");
        Path draSocket = startServer(directory);
        // the simulated kubelet's channel and calls (KubeletHost, DraPlugin)
        clientLoop = PollingEventLoops.create("bench-client-io");
        channel = UnixSocketChannels.to(draSocket.toString(), clientLoop).directExecutor().build();
        async = DRAPluginGrpc.newStub(channel);
        request = NodePrepareResourcesRequest.newBuilder()
                .addClaims(Claim.newBuilder().setNamespace(BenchDriver.NAMESPACE).setName(BenchDriver.CLAIM_NAME)
                        .setUid(BenchDriver.CLAIM_UID))
                .build();
        NodePrepareResourcesResponse first = prepare();
        if (first.getClaimsOrThrow(BenchDriver.CLAIM_UID).getDevicesCount() != 1) {
            throw new IllegalStateException("unexpected response " + first);
        }
    }

    @Setup(Level.Iteration)
    public void markIterationStart() {
        cpu.start(completed.sum());
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @Threads(1)
    public NodePrepareResourcesResponse roundTrip() {
        return blockingCall();
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @Threads(1)
    public void inFlight64() throws InterruptedException {
        // Each invocation starts one call once fewer than 64 are outstanding: invocations/s = completions/s.
        inFlight.acquire();
        async.nodePrepareResources(request, release);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @Threads(IN_FLIGHT)
    public NodePrepareResourcesResponse blockingThreads64() {
        return blockingCall();
    }

    private NodePrepareResourcesResponse blockingCall() {
        NodePrepareResourcesResponse response = prepare();
        completed.increment();
        return response;
    }

    /** One blocking call as the simulated kubelet makes it ({@code DraPlugin}). */
    private NodePrepareResourcesResponse prepare() {
        return PollingCalls.blockingUnaryCall(channel, DRAPluginGrpc.getNodePrepareResourcesMethod(),
                CallOptions.DEFAULT, request);
    }

    /** Lets outstanding calls finish, so that each iteration starts from an idle server, and fails on errors. */
    @TearDown(Level.Iteration)
    public void drain() throws InterruptedException {
        if (!inFlight.tryAcquire(IN_FLIGHT, 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("calls still outstanding after 60 s");
        }
        inFlight.release(IN_FLIGHT);
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " calls failed", firstFailure.get());
        }
        cpu.report(completed.sum(), "call");
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        channel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
        clientLoop.shutdownGracefully(0, 0, TimeUnit.SECONDS).await();
        stopServer();
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    private void failed(Throwable error) {
        failures.incrementAndGet();
        firstFailure.compareAndSet(null, error);
    }
}
