package io.kdra.cluster.kubelet.server;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ServerWebSocket;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * One exec stream over a WebSocket with the Kubernetes channel protocol (k8s.io/apimachinery remotecommand, v4 and
 * v5): every binary message starts with its channel — 0 stdin, 1 stdout, 2 stderr, 3 the final status, 4 terminal
 * resize — and, in v5, 255 closes the stream named by the next byte (the client closing stdin). The final status is
 * a metav1.Status; the socket then closes normally, which ends the client's streams.
 */
final class ExecSession {

    static final int STDIN = 0;
    static final int STDOUT = 1;
    static final int STDERR = 2;
    static final int ERROR = 3;
    static final int RESIZE = 4;
    static final int CLOSE = 255;

    private static final Logger LOG = LoggerFactory.getLogger(ExecSession.class);
    private static final short NORMAL_CLOSURE = 1000;
    private static final int CHUNK = 32 * 1024;

    /** The streams a client asked for ({@code input}, {@code output}, {@code error}). */
    record Streams(boolean stdin, boolean stdout, boolean stderr) {}

    private final ServerWebSocket socket;
    private final Process process;
    private final String startError;
    private final Streams streams;
    private final boolean closeSignals;
    private final ExecutorService blocking;
    private final BlockingSink sink;
    private final AtomicBoolean finished = new AtomicBoolean();
    private volatile boolean stdinClosed;

    /**
     * @param process the started command, or null when it could not start
     * @param startError why it could not start
     * @param closeSignals whether the protocol has the close channel (v5)
     */
    ExecSession(ServerWebSocket socket, Process process, String startError, Streams streams, boolean closeSignals,
            ExecutorService blocking) {
        this.socket = socket;
        this.process = process;
        this.startError = startError;
        this.streams = streams;
        this.closeSignals = closeSignals;
        this.blocking = blocking;
        this.sink = new BlockingSink(socket);
    }

    /** @param onClose run once the socket has closed, whoever closed it */
    void start(Runnable onClose) {
        socket.binaryMessageHandler(this::received);
        socket.textMessageHandler(text -> LOG.debug("exec: a text message is no channel message; ignored"));
        socket.closeHandler(closed -> {
            end();
            onClose.run();
        });
        socket.exceptionHandler(e -> LOG.debug("exec stream of {} failed: {}", socket.remoteAddress(), e.toString()));
        // an empty message on the lowest writable channel tells the client that the streams are up, as the kubelet
        int ready = streams.stdout() ? STDOUT : streams.stderr() ? STDERR : ERROR;
        socket.writeBinaryMessage(Buffer.buffer(new byte[] {(byte) ready}));
        if (process == null) {
            finish(internalError("error executing command in container: " + startError));
            return;
        }
        if (!streams.stdin()) {
            closeStdin();
        }
        CompletableFuture<Void> stdout = pump(process.getInputStream(), streams.stdout() ? STDOUT : -1);
        CompletableFuture<Void> stderr = pump(process.getErrorStream(), streams.stderr() ? STDERR : -1);
        CompletableFuture.allOf(stdout, stderr).thenRunAsync(this::awaitExit, blocking);
    }

    /** Copies one output of the process to its channel, or drops it when the client did not ask for it. */
    private CompletableFuture<Void> pump(InputStream output, int channel) {
        return CompletableFuture.runAsync(() -> {
            byte[] buffer = new byte[CHUNK];
            try (output) {
                int read;
                while ((read = output.read(buffer)) >= 0) {
                    if (channel < 0 || read == 0) {
                        continue;
                    }
                    Buffer message = Buffer.buffer(read + 1).appendByte((byte) channel).appendBytes(buffer, 0, read);
                    if (!sink.write(message)) {
                        return;
                    }
                }
            } catch (IOException e) {
                LOG.debug("exec: reading channel {} ended: {}", channel, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, blocking);
    }

    private void awaitExit() {
        try {
            int code = process.waitFor();
            finish(code == 0 ? success() : nonZeroExit(code));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void received(Buffer message) {
        if (message.length() == 0) {
            return;
        }
        int channel = message.getUnsignedByte(0);
        switch (channel) {
            case STDIN -> {
                if (streams.stdin() && process != null && message.length() > 1) {
                    writeStdin(message.getBytes(1, message.length()));
                }
            }
            case CLOSE -> {
                if (closeSignals && message.length() > 1 && message.getUnsignedByte(1) == STDIN) {
                    closeStdin();
                }
            }
            case RESIZE -> LOG.debug("exec: resize ignored, there is no terminal");
            default -> LOG.debug("exec: a message for channel {} ignored", channel);
        }
    }

    /** Writes on a blocking thread; the socket stays paused meanwhile, so stdin keeps its order and its pace. */
    private void writeStdin(byte[] data) {
        socket.pause();
        blocking.execute(() -> {
            try {
                if (!stdinClosed) {
                    OutputStream stdin = process.getOutputStream();
                    stdin.write(data);
                    stdin.flush();
                }
            } catch (IOException e) {
                LOG.debug("exec: the command no longer reads stdin: {}", e.toString());
                stdinClosed = true;
            } finally {
                socket.resume();
            }
        });
    }

    private void closeStdin() {
        if (process == null) {
            return;
        }
        socket.pause();
        blocking.execute(() -> {
            stdinClosed = true;
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                LOG.debug("exec: closing stdin: {}", e.toString());
            } finally {
                socket.resume();
            }
        });
    }

    private void finish(ObjectNode status) {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        byte[] json = JsonMapper.shared().writeValueAsBytes(status);
        Buffer message = Buffer.buffer(json.length + 1).appendByte((byte) ERROR).appendBytes(json);
        socket.writeBinaryMessage(message).onComplete(written -> {
            if (!socket.isClosed()) {
                socket.close(NORMAL_CLOSURE);
            }
        });
    }

    /** The client went away, or the session ended: nothing more is written, and the command does not outlive it. */
    void end() {
        finished.set(true);
        sink.close();
        if (process != null && process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        if (!socket.isClosed()) {
            socket.close(NORMAL_CLOSURE);
        }
    }

    private static ObjectNode status(String value) {
        ObjectNode status = JsonMapper.shared().createObjectNode();
        status.putObject("metadata");
        status.put("status", value);
        return status;
    }

    private static ObjectNode success() {
        return status("Success");
    }

    /** The status upstream's kubelet sends for a command that exited with a non-zero code (remotecommand v4). */
    private static ObjectNode nonZeroExit(int code) {
        ObjectNode status = status("Failure");
        status.put("message", "command terminated with non-zero exit code: exit status " + code);
        status.put("reason", "NonZeroExitCode");
        status.putObject("details").putArray("causes").addObject()
                .put("reason", "ExitCode")
                .put("message", Integer.toString(code));
        return status;
    }

    private static ObjectNode internalError(String why) {
        ObjectNode status = status("Failure");
        status.put("message", "Internal error occurred: " + why);
        status.put("reason", "InternalError");
        status.putObject("details").putArray("causes").addObject().put("message", why);
        status.put("code", 500);
        return status;
    }
}
