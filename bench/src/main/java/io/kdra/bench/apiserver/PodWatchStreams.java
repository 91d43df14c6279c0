package io.kdra.bench.apiserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Pod watch streams over HTTP, some filtered by {@code spec.nodeName}, all read by one thread through a selector so
 * that hundreds of watchers cost the benchmark one thread rather than hundreds. Each stream checks every event it
 * reads: resourceVersions strictly increase (no duplicate, no reordering), a node's stream gets only pods bound to
 * its node and never a DELETED; the streams count events and ADDED events for {@link #await} to compare with what
 * the writers caused.
 */
final class PodWatchStreams implements AutoCloseable {

    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final byte[] TYPE = bytes("{\"type\":\"");
    private static final byte[] RESOURCE_VERSION = bytes("\"resourceVersion\":\"");
    private static final byte[] NODE_NAME = bytes("\"nodeName\":\"");

    private final Selector selector;
    private final List<Stream> streams = new ArrayList<>();
    private volatile boolean closing;

    /** What the writers caused so far, for one stream. */
    record Expected(long events, long added) {}

    private PodWatchStreams(Selector selector) {
        this.selector = selector;
    }

    /**
     * Opens one stream per node ({@code fieldSelector=spec.nodeName=<node>}) and the unfiltered ones, and returns once
     * the server answered every one.
     *
     * @param nodes the node names to watch one each
     */
    static PodWatchStreams open(RunningServer server, List<String> nodes, int unfiltered) {
        try {
            Selector selector = Selector.open();
            PodWatchStreams group = new PodWatchStreams(selector);
            URI url = URI.create(server.server.url());
            String token = server.server.adminToken();
            List<String> watched = new ArrayList<>(nodes);
            for (int i = 0; i < unfiltered; i++) {
                watched.add(null);
            }
            for (String node : watched) {
                String path = "/api/v1/pods?watch=1"
                        + (node == null ? "" : "&fieldSelector=spec.nodeName%3D" + node);
                SocketChannel channel = SocketChannel.open(new InetSocketAddress(url.getHost(), url.getPort()));
                channel.socket().setTcpNoDelay(true);
                ByteBuffer request = ByteBuffer.wrap(("GET " + path + " HTTP/1.1\r\nHost: " + url.getHost() + ":"
                        + url.getPort() + "\r\nAuthorization: Bearer " + token + "\r\nAccept: application/json\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                while (request.hasRemaining()) {
                    channel.write(request);
                }
                channel.configureBlocking(false);
                Stream stream = new Stream(node);
                channel.register(selector, SelectionKey.OP_READ, stream);
                group.streams.add(stream);
            }
            return group.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private PodWatchStreams start() {
        Thread thread = new Thread(this::readAll, "pod-watch-reader");
        thread.setDaemon(true);
        thread.start();
        long deadline = System.nanoTime() + STALL_NANOS;
        for (Stream stream : streams) {
            while (!stream.headRead && stream.problem == null) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("a watch got no answer in 60 s");
                }
                Thread.onSpinWait();
            }
            if (stream.problem != null) {
                throw new IllegalStateException(stream.describe() + ": " + stream.problem);
            }
        }
        return this;
    }

    /**
     * Waits until every stream has read what the writers caused and checks it read exactly that: as many events and
     * ADDED events, nothing foreign, in resourceVersion order.
     *
     * @param byNode what a node's stream must have read
     * @param everything what an unfiltered stream must have read
     * @throws IllegalStateException naming the first stream that missed, duplicated, reordered or got a foreign
     *     event, was dropped, or read nothing new for 60 s
     */
    void await(Function<String, Expected> byNode, Expected everything)
            throws InterruptedException {
        for (Stream stream : streams) {
            Expected expected = stream.node == null ? everything : byNode.apply(stream.node);
            long read = stream.events;
            long progressAt = System.nanoTime();
            while (read < expected.events() && stream.problem == null) {
                if (System.nanoTime() - progressAt > STALL_NANOS) {
                    throw new IllegalStateException(stream.describe() + " read " + read + " of " + expected.events()
                            + " events and nothing more for 60 s");
                }
                Thread.sleep(1);
                long now = stream.events;
                if (now > read) {
                    read = now;
                    progressAt = System.nanoTime();
                }
            }
        }
        for (Stream stream : streams) {
            Expected expected = stream.node == null ? everything : byNode.apply(stream.node);
            if (stream.problem != null) {
                throw new IllegalStateException(stream.describe() + ": " + stream.problem);
            }
            if (stream.events != expected.events() || stream.added != expected.added()) {
                throw new IllegalStateException(String.format("%s read %d events (%d ADDED), expected %d (%d ADDED)",
                        stream.describe(), stream.events, stream.added, expected.events(), expected.added()));
            }
        }
    }

    private void readAll() {
        ByteBuffer buffer = ByteBuffer.allocate(256 * 1024);
        try {
            while (!closing) {
                selector.select();
                for (SelectionKey key : selector.selectedKeys()) {
                    Stream stream = (Stream) key.attachment();
                    buffer.clear();
                    int read = ((SocketChannel) key.channel()).read(buffer);
                    if (read < 0) {
                        stream.fail("the server ended the watch");
                        key.cancel();
                    } else {
                        stream.feed(buffer.array(), read);
                    }
                }
                selector.selectedKeys().clear();
            }
        } catch (IOException | ClosedSelectorException e) {
            if (!closing) {
                streams.forEach(stream -> stream.fail("reading failed: " + e));
            }
        }
    }

    @Override
    public void close() {
        closing = true;
        try {
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
            selector.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** One watch response: a chunked body of newline-separated JSON events, decoded as bytes arrive. */
    private static final class Stream {
        private enum Part { HEAD, CHUNK_SIZE, CHUNK_DATA, CHUNK_END }

        final String node;
        private final byte[] nodeValue;
        private Part part = Part.HEAD;
        private byte[] pending = new byte[8 * 1024];
        private int pendingLength;
        private int chunkLeft;
        private long lastVersion;
        volatile boolean headRead;
        volatile long events;
        volatile long added;
        volatile String problem;

        Stream(String node) {
            this.node = node;
            this.nodeValue = node == null ? null : bytes(node + "\"");
        }

        String describe() {
            return node == null ? "an unfiltered watch" : "the watch of " + node;
        }

        void fail(String why) {
            if (problem == null) {
                problem = why;
            }
        }

        void feed(byte[] data, int length) {
            int i = 0;
            while (i < length) {
                switch (part) {
                    case HEAD, CHUNK_SIZE, CHUNK_END -> {
                        byte b = data[i++];
                        append(b);
                        if (b == '\n') {
                            endOfLine();
                        }
                    }
                    case CHUNK_DATA -> {
                        int take = Math.min(chunkLeft, length - i);
                        for (int end = i + take; i < end; i++) {
                            byte b = data[i];
                            if (b == '\n') {
                                event();
                                pendingLength = 0;
                            } else {
                                append(b);
                            }
                        }
                        chunkLeft -= take;
                        if (chunkLeft == 0) {
                            part = Part.CHUNK_END;
                        }
                    }
                }
            }
        }

        private void append(byte b) {
            if (pendingLength == pending.length) {
                pending = Arrays.copyOf(pending, pending.length * 2);
            }
            pending[pendingLength++] = b;
        }

        /** A line of the head or of the chunk framing ended. */
        private void endOfLine() {
            String line = new String(pending, 0, pendingLength, StandardCharsets.ISO_8859_1).trim();
            pendingLength = 0;
            switch (part) {
                case HEAD -> {
                    if (line.startsWith("HTTP/") && !line.contains(" 200")) {
                        fail("the watch was answered " + line);
                    } else if (line.isEmpty()) {
                        part = Part.CHUNK_SIZE;
                        headRead = true;
                    }
                }
                case CHUNK_SIZE -> {
                    int semicolon = line.indexOf(';');
                    chunkLeft = Integer.parseInt(semicolon < 0 ? line : line.substring(0, semicolon), 16);
                    if (chunkLeft == 0) {
                        fail("the server ended the watch");
                    }
                    part = Part.CHUNK_DATA;
                }
                case CHUNK_END -> part = Part.CHUNK_SIZE;
                default -> throw new IllegalStateException(part.name());
            }
        }

        /** The pending bytes are one event. */
        private void event() {
            int typeAt = indexOf(TYPE, 0);
            if (typeAt != 0) {
                fail("a line that is no watch event: " + preview());
                return;
            }
            String type = textAt(TYPE.length);
            if (type.equals("BOOKMARK")) {
                return;
            }
            int versionAt = indexOf(RESOURCE_VERSION, 0);
            long version = versionAt < 0 ? -1 : Long.parseLong(textAt(versionAt + RESOURCE_VERSION.length));
            if (version <= lastVersion) {
                fail("resourceVersion " + version + " after " + lastVersion + ": " + preview());
            }
            lastVersion = version;
            if (node != null) {
                int nodeAt = indexOf(NODE_NAME, 0);
                if (nodeAt < 0 || !startsWith(nodeAt + NODE_NAME.length, nodeValue)) {
                    fail("a foreign " + type + " event: " + preview());
                }
                if (type.equals("DELETED") || type.equals("ERROR")) {
                    fail("a " + type + " event: " + preview());
                }
            }
            if (type.equals("ADDED")) {
                added++;
            }
            events++;
        }

        private String preview() {
            return new String(pending, 0, Math.min(pendingLength, 300), StandardCharsets.UTF_8);
        }

        private String textAt(int start) {
            int end = start;
            while (end < pendingLength && pending[end] != '"') {
                end++;
            }
            return new String(pending, start, end - start, StandardCharsets.UTF_8);
        }

        private boolean startsWith(int at, byte[] prefix) {
            if (at + prefix.length > pendingLength) {
                return false;
            }
            for (int i = 0; i < prefix.length; i++) {
                if (pending[at + i] != prefix[i]) {
                    return false;
                }
            }
            return true;
        }

        private int indexOf(byte[] needle, int from) {
            byte first = needle[0];
            for (int i = from; i <= pendingLength - needle.length; i++) {
                if (pending[i] == first && startsWith(i, needle)) {
                    return i;
                }
            }
            return -1;
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
