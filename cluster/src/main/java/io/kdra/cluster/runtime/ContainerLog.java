package io.kdra.cluster.runtime;

import io.kdra.cluster.kubelet.server.LogOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one container instance, kept as a CRI runtime keeps it: one record per line,
 * {@code <RFC 3339 time> <stream> <tag> <content>}, tag {@code F} for a full line and {@code P} for a part of a line
 * longer than {@value #MAX_LINE} bytes. Read back as the kubelet serves it: content only, or with the time in front,
 * from a number of lines before the end, from a time on, up to a number of bytes, and following new output until the
 * instance's output ends.
 */
final class ContainerLog {

    /** containerd's default {@code max_container_log_line_size}. */
    static final int MAX_LINE = 16 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(ContainerLog.class);
    private static final DateTimeFormatter SECONDS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").withZone(ZoneOffset.UTC);
    private static final int READ_CHUNK = 64 * 1024;

    private final Path file;
    private long size;
    private boolean outputEnded;
    private boolean instanceEnded;

    private ContainerLog(Path file) {
        this.file = file;
        this.outputEnded = file == null;
    }

    /** The log of an instance that writes nothing; it ends when {@link #instanceEnded()} is called. */
    static ContainerLog empty() {
        return new ContainerLog(null);
    }

    /** A new, empty log file (an existing one is replaced). */
    static ContainerLog create(Path file) throws IOException {
        Files.write(file, new byte[0]);
        return new ContainerLog(file);
    }

    Path file() {
        return file;
    }

    /**
     * Copies a process's output into the log until it ends. Blocks: run it on a thread that may wait for the process.
     */
    void pump(InputStream output) {
        try (output; OutputStream out = Files.newOutputStream(file, StandardOpenOption.APPEND)) {
            byte[] buffer = new byte[8192];
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            ByteArrayOutputStream records = new ByteArrayOutputStream();
            int read;
            while ((read = output.read(buffer)) >= 0) {
                // the time a line was read, as containerd stamps it
                String time = timestamp(Instant.now());
                for (int i = 0; i < read; i++) {
                    if (buffer[i] == '\n') {
                        record(records, time, 'F', line);
                    } else {
                        line.write(buffer[i]);
                        if (line.size() == MAX_LINE) {
                            record(records, time, 'P', line);
                        }
                    }
                }
                flush(out, records);
            }
            if (line.size() > 0) {
                record(records, timestamp(Instant.now()), 'F', line);
                flush(out, records);
            }
        } catch (IOException e) {
            LOG.debug("output of {} ended: {}", file, e.toString());
        } finally {
            synchronized (this) {
                outputEnded = true;
                notifyAll();
            }
        }
    }

    /**
     * The instance has ended; once its output has ended too, followers end when they have read everything (a process
     * that closes its output early is followed until it exits).
     */
    synchronized void instanceEnded() {
        instanceEnded = true;
        notifyAll();
    }

    private boolean complete() {
        return outputEnded && instanceEnded;
    }

    /** Opens the log with a request's options. */
    InputStream open(LogOptions options) throws IOException {
        return new Reader(options);
    }

    /** A time as Go's RFC 3339 with nanoseconds writes it: trailing zeros of the fraction left out. */
    static String timestamp(Instant time) {
        StringBuilder text = new StringBuilder(SECONDS.format(time));
        int nanos = time.getNano();
        if (nanos != 0) {
            String fraction = String.format("%09d", nanos);
            int end = fraction.length();
            while (fraction.charAt(end - 1) == '0') {
                end--;
            }
            text.append('.').append(fraction, 0, end);
        }
        return text.append('Z').toString();
    }

    private static void record(ByteArrayOutputStream records, String time, char tag, ByteArrayOutputStream line) {
        records.writeBytes((time + " stdout " + tag + " ").getBytes(StandardCharsets.US_ASCII));
        records.writeBytes(line.toByteArray());
        records.write('\n');
        line.reset();
    }

    private void flush(OutputStream out, ByteArrayOutputStream records) throws IOException {
        if (records.size() == 0) {
            return;
        }
        out.write(records.toByteArray());
        out.flush();
        synchronized (this) {
            size += records.size();
            notifyAll();
        }
        records.reset();
    }

    /** Reads records from a start offset and formats them as the kubelet does. */
    private final class Reader extends InputStream {

        private final LogOptions options;
        private final FileChannel channel;
        private final long sizeAtOpen;
        private final ByteBuffer chunk = ByteBuffer.allocate(READ_CHUNK);
        private long chunkStart;
        private long position;
        private long remaining;
        private byte[] current = new byte[0];
        private int index;
        private volatile boolean closed;

        Reader(LogOptions options) throws IOException {
            this.options = options;
            this.channel = file == null ? null : FileChannel.open(file, StandardOpenOption.READ);
            synchronized (ContainerLog.this) {
                this.sizeAtOpen = size;
            }
            this.remaining = options.limitBytes() < 0 ? Long.MAX_VALUE : options.limitBytes();
            chunk.limit(0);
            if (options.tailLines() >= 0) {
                position = tailStart(options.tailLines());
            }
        }

        @Override
        public int read() throws IOException {
            if (!fill()) {
                return -1;
            }
            return current[index++] & 0xff;
        }

        @Override
        public int read(byte[] target, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            if (!fill()) {
                return -1;
            }
            int count = Math.min(length, current.length - index);
            System.arraycopy(current, index, target, offset, count);
            index += count;
            return count;
        }

        @Override
        public void close() throws IOException {
            synchronized (ContainerLog.this) {
                closed = true;
                ContainerLog.this.notifyAll();
            }
            if (channel != null) {
                channel.close();
            }
        }

        private boolean fill() throws IOException {
            while (index >= current.length) {
                if (remaining == 0 || closed) {
                    return false;
                }
                byte[] record = nextRecord(true);
                if (record == null) {
                    return false;
                }
                byte[] formatted = format(record);
                if (formatted == null) {
                    continue;
                }
                if (formatted.length > remaining) {
                    byte[] truncated = new byte[(int) remaining];
                    System.arraycopy(formatted, 0, truncated, 0, truncated.length);
                    formatted = truncated;
                }
                remaining -= formatted.length;
                current = formatted;
                index = 0;
            }
            return true;
        }

        /** The file offset of the {@code lines}-th record before the end, as it was when the log was opened. */
        private long tailStart(long lines) throws IOException {
            if (lines == 0) {
                return sizeAtOpen;
            }
            ArrayDeque<Long> starts = new ArrayDeque<>();
            while (true) {
                long start = position;
                if (nextRecord(false) == null) {
                    break;
                }
                starts.addLast(start);
                if (starts.size() > lines) {
                    starts.removeFirst();
                }
            }
            return starts.isEmpty() ? sizeAtOpen : starts.getFirst();
        }

        /**
         * The next record without its newline, or null at the end: the end of the log as it was when opened, or, when
         * following (and not scanning for the tail), the end of the instance's output, waiting for more until then.
         */
        private byte[] nextRecord(boolean mayFollow) throws IOException {
            long end = mayFollow && options.follow() ? awaitMore() : sizeAtOpen;
            if (end <= position) {
                return null;
            }
            byte[] record = recordAt(end);
            if (record == null) {
                // the writer appends whole records; a missing newline means a damaged file: stop there
                LOG.warn("log {} has an unterminated record at offset {}", file, position);
            }
            return record;
        }

        private long awaitMore() throws IOException {
            synchronized (ContainerLog.this) {
                while (!closed && size <= position && !complete()) {
                    try {
                        ContainerLog.this.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("interrupted while following " + file);
                    }
                }
                return closed ? 0 : size;
            }
        }

        private byte[] recordAt(long end) throws IOException {
            if (position < chunkStart || position >= chunkStart + chunk.limit()
                    || indexOfNewline((int) (position - chunkStart)) < 0) {
                chunk.clear();
                chunk.limit((int) Math.min(READ_CHUNK, end - position));
                chunkStart = position;
                while (chunk.hasRemaining()) {
                    if (channel.read(chunk, chunkStart + chunk.position()) < 0) {
                        break;
                    }
                }
                chunk.flip();
            }
            int from = (int) (position - chunkStart);
            int newline = indexOfNewline(from);
            if (newline < 0) {
                return null;
            }
            byte[] record = new byte[newline - from];
            chunk.get(from, record);
            position = chunkStart + newline + 1;
            return record;
        }

        private int indexOfNewline(int from) {
            for (int i = from; i < chunk.limit(); i++) {
                if (chunk.get(i) == '\n') {
                    return i;
                }
            }
            return -1;
        }

        /** A record as the kubelet prints it, or null when it is older than {@code sinceTime}. */
        private byte[] format(byte[] record) {
            int timeEnd = indexOf(record, ' ', 0);
            int streamEnd = indexOf(record, ' ', timeEnd + 1);
            int tagEnd = indexOf(record, ' ', streamEnd + 1);
            if (timeEnd < 0 || streamEnd < 0 || tagEnd < 0) {
                return null;
            }
            String time = new String(record, 0, timeEnd, StandardCharsets.US_ASCII);
            if (options.sinceTime() != null) {
                try {
                    if (Instant.parse(time).isBefore(options.sinceTime())) {
                        return null;
                    }
                } catch (DateTimeParseException e) {
                    return null;
                }
            }
            boolean full = record[streamEnd + 1] == 'F';
            ByteArrayOutputStream out = new ByteArrayOutputStream(record.length + 1);
            if (options.timestamps()) {
                out.write(record, 0, timeEnd + 1);
            }
            out.write(record, tagEnd + 1, record.length - tagEnd - 1);
            if (full) {
                out.write('\n');
            }
            return out.toByteArray();
        }

        private static int indexOf(byte[] bytes, char c, int from) {
            for (int i = from; i < bytes.length; i++) {
                if (bytes[i] == c) {
                    return i;
                }
            }
            return -1;
        }
    }
}
