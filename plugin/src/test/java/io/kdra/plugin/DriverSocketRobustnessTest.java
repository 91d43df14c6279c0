package io.kdra.plugin;

import static io.kdra.plugin.DraClient.claim;
import static io.kdra.plugin.DraClient.prepareRequest;
import static io.kdra.plugin.DraClient.unprepareRequest;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.kdra.kubelet.api.dra.v1.DRAPluginGrpc;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import io.kdra.plugin.testing.PluginFixture;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The driver's sockets under hostile clients: connections that send nothing or half a preface are closed, and seeded
 * random request messages get a response or INVALID_ARGUMENT with a description (a message that does not parse names
 * the method and the protobuf error), after which the driver still serves.
 */
class DriverSocketRobustnessTest {

    private static final String DRIVER = "test.example.com";
    private static final long SEED = 20261206L;
    private static final int CASES = 300;

    @RegisterExtension
    final PluginFixture fixture = new PluginFixture();

    @Test
    void aConnectionThatSendsNothingOrHalfAPrefaceIsClosed() throws Exception {
        KubeletPlugin plugin = fixture.start(fixture.builder(DRIVER, new RecordingDriver())
                .connectionIdleTimeout(Duration.ofSeconds(1)));

        // a connection that ignores the GOAWAY is closed once the server's 10 s wait for its ping answer ends
        CompletableFuture<Boolean> silent = CompletableFuture.supplyAsync(() -> closedByServer(plugin.draSocket(), ""));
        CompletableFuture<Boolean> halfPreface = CompletableFuture.supplyAsync(() ->
                closedByServer(plugin.registrationSocket(), "PRI * HTTP/2.0\r\n"));
        assertThat(silent.get(60, TimeUnit.SECONDS)).isTrue();
        assertThat(halfPreface.get(60, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void randomRequestMessagesGetAResponseOrAStatusAndTheDriverLives() throws Exception {
        KubeletPlugin plugin = fixture.start(fixture.builder(DRIVER, new RecordingDriver()));
        ManagedChannel channel = fixture.dial(plugin.draSocket());
        byte[][] seeds = {
            prepareRequest(claim("ns", "a", "uid-a"), claim("ns", "b", "uid-b")).toByteArray(),
            unprepareRequest(claim("ns", "a", "uid-a")).toByteArray()};
        Random random = new Random(SEED);
        int answered = 0;
        int refused = 0;
        int unparsable = 0;
        for (int i = 0; i < CASES; i++) {
            boolean prepare = random.nextBoolean();
            byte[] message = mutate(seeds[prepare ? 0 : 1], random);
            MethodDescriptor<byte[], byte[]> method = raw(prepare
                    ? DRAPluginGrpc.getNodePrepareResourcesMethod().getFullMethodName()
                    : DRAPluginGrpc.getNodeUnprepareResourcesMethod().getFullMethodName());
            try {
                byte[] response = ClientCalls.blockingUnaryCall(channel, method,
                        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), message);
                if (prepare) {
                    NodePrepareResourcesResponse.parseFrom(response);
                } else {
                    NodeUnprepareResourcesResponse.parseFrom(response);
                }
                answered++;
            } catch (StatusRuntimeException e) {
                assertThat(e.getStatus().getCode()).as("case %d: %s", i, e.getStatus())
                        .isEqualTo(Status.Code.INVALID_ARGUMENT);
                assertThat(e.getStatus().getDescription()).as("case %d", i).isNotBlank();
                if (e.getStatus().getDescription().startsWith("invalid " + method.getFullMethodName() + " request: ")) {
                    unparsable++;
                }
                refused++;
            }
        }

        assertThat(answered).isPositive();
        assertThat(refused).isPositive();
        assertThat(unparsable).isPositive();
        assertThat(DraClient.V1.unprepare(channel, unprepareRequest()).getClaimsMap()).isEmpty();
    }

    /** @return whether the server closed the connection after the bytes were sent, within 30 s */
    private static boolean closedByServer(Path socket, String sent) {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(ByteBuffer.wrap(sent.getBytes(StandardCharsets.US_ASCII)));
            CompletableFuture<Boolean> closed = CompletableFuture.supplyAsync(() -> {
                ByteBuffer buffer = ByteBuffer.allocate(4096);
                try {
                    while (channel.read(buffer) >= 0) {
                        buffer.clear();
                    }
                    return true;
                } catch (IOException e) {
                    return true;
                }
            });
            return closed.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] mutate(byte[] message, Random random) {
        byte[] bytes = message.clone();
        switch (random.nextInt(4)) {
            case 0 -> bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
            case 1 -> bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
            case 2 -> {
                bytes = new byte[random.nextInt(64)];
                random.nextBytes(bytes);
            }
            default -> {
                // a length prefix that claims more bytes than follow
                int at = random.nextInt(bytes.length);
                bytes[at] = (byte) (0x80 | random.nextInt(128));
            }
        }
        return bytes;
    }

    private static MethodDescriptor<byte[], byte[]> raw(String fullMethodName) {
        MethodDescriptor.Marshaller<byte[]> bytes = new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(byte[] value) {
                return new ByteArrayInputStream(value);
            }

            @Override
            public byte[] parse(InputStream stream) {
                try {
                    return stream.readAllBytes();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(fullMethodName).setRequestMarshaller(bytes).setResponseMarshaller(bytes).build();
    }
}
