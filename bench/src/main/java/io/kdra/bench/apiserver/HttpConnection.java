package io.kdra.bench.apiserver;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * One keep-alive HTTP/1.1 connection with blocking calls: a minimal client, so that the benchmarks' CPU goes to the
 * server rather than to the client (the JDK HttpClient costs about as much per request as the server does).
 * Understands Content-Length and chunked bodies; not thread-safe.
 */
final class HttpConnection implements AutoCloseable {

    /** A response: status and body. */
    record Response(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String hostHeader;
    private final String token;
    private final byte[] buffer = new byte[64 * 1024];
    /** The head of the answer {@link #openStream} opened. */
    private Head streamHead;

    HttpConnection(String host, int port, String token) {
        try {
            this.socket = new Socket(host, port);
            socket.setTcpNoDelay(true);
            this.in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            this.out = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.hostHeader = host + ":" + port;
        this.token = token;
    }

    Response send(String method, String path, String body) {
        return send(method, path, "application/json", body);
    }

    /** @param contentType the body's media type, e.g. {@code application/strategic-merge-patch+json} */
    Response send(String method, String path, String contentType, String body) {
        try {
            writeRequest(method, path, contentType, body);
            Head head = readHead();
            ByteArrayOutputStream content = new ByteArrayOutputStream(head.contentLength > 0 ? head.contentLength : 256);
            readBody(head, chunk -> content.write(chunk.bytes, chunk.offset, chunk.length));
            return new Response(head.status, content.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends a GET and reads the head of its answer; {@link #readStream} then reads the streamed body. */
    void openStream(String path) {
        try {
            writeRequest("GET", path, null, null);
            streamHead = readHead();
            if (streamHead.status != 200) {
                throw new IllegalStateException("GET " + path + " answered " + streamHead.status);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Hands every piece of the body opened by {@link #openStream} to the consumer until the server ends it. */
    void readStream(Consumer<Chunk> pieces) throws IOException {
        if (streamHead == null) {
            throw new IllegalStateException("readStream needs a stream that openStream opened");
        }
        readBody(streamHead, pieces);
    }

    /** A piece of a body, valid only during the call that receives it. */
    record Chunk(byte[] bytes, int offset, int length) {}

    private record Head(int status, int contentLength, boolean chunked) {}

    private void writeRequest(String method, String path, String contentType, String body) throws IOException {
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        String request = method + " " + path + " HTTP/1.1\r\nHost: " + hostHeader + "\r\nAuthorization: Bearer "
                + token + "\r\nAccept: application/json\r\n"
                + (body == null ? "" : "Content-Type: " + contentType + "\r\n")
                + "Content-Length: " + content.length + "\r\n\r\n";
        out.write(request.getBytes(StandardCharsets.ISO_8859_1));
        out.write(content);
        out.flush();
    }

    private Head readHead() throws IOException {
        String statusLine = readLine();
        int status = Integer.parseInt(statusLine.split(" ", 3)[1]);
        int contentLength = -1;
        boolean chunked = false;
        for (String line; !(line = readLine()).isEmpty(); ) {
            int colon = line.indexOf(':');
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            if (name.equals("content-length")) {
                contentLength = Integer.parseInt(value);
            } else if (name.equals("transfer-encoding") && value.equalsIgnoreCase("chunked")) {
                chunked = true;
            }
        }
        return new Head(status, contentLength, chunked);
    }

    private void readBody(Head head, Consumer<Chunk> pieces) throws IOException {
        if (!head.chunked) {
            readExactly(Math.max(0, head.contentLength), pieces);
            return;
        }
        while (true) {
            String sizeLine = readLine();
            int semicolon = sizeLine.indexOf(';');
            int size = Integer.parseInt(semicolon < 0 ? sizeLine.trim() : sizeLine.substring(0, semicolon).trim(), 16);
            if (size == 0) {
                while (!readLine().isEmpty()) {
                    // trailers
                }
                return;
            }
            readExactly(size, pieces);
            readLine();
        }
    }

    private void readExactly(int length, Consumer<Chunk> pieces) throws IOException {
        for (int left = length; left > 0; ) {
            int read = in.read(buffer, 0, Math.min(buffer.length, left));
            if (read < 0) {
                throw new IOException("connection closed in a body");
            }
            pieces.accept(new Chunk(buffer, 0, read));
            left -= read;
        }
    }

    private String readLine() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b; (b = in.read()) != '\n'; ) {
            if (b < 0) {
                throw new IOException("connection closed");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
