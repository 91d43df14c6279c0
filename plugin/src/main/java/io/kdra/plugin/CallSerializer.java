package io.kdra.plugin;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets at most one prepare or unprepare call run the driver at a time: within one plugin instance, or, with rolling
 * updates, across all instances that share a lock file, in this JVM and in other processes.
 *
 * <p>The lock file is held with a POSIX record lock ({@link FileChannel#lock()}); it does not exclude Go plugins, which
 * use {@code flock}. A JVM cannot hold two record locks on one file, so instances in the same JVM (as in e2e tests)
 * first take a JVM-wide semaphore per lock file.
 */
final class CallSerializer {

    private static final Logger LOG = LoggerFactory.getLogger(CallSerializer.class);
    private static final Map<Path, Semaphore> JVM_LOCKS = new ConcurrentHashMap<>();
    private static final Permit NO_PERMIT = () -> { };

    /** Held while the driver runs; closing it never fails. */
    interface Permit extends AutoCloseable {
        @Override
        void close();
    }

    private final Semaphore semaphore;
    private final Path lockFile;

    private CallSerializer(Semaphore semaphore, Path lockFile) {
        this.semaphore = semaphore;
        this.lockFile = lockFile;
    }

    /** No serialization: the driver handles concurrency itself. */
    static CallSerializer disabled() {
        return new CallSerializer(null, null);
    }

    /** Serialization within this plugin instance. */
    static CallSerializer inProcess() {
        return new CallSerializer(new Semaphore(1), null);
    }

    /** Serialization across every instance that uses this lock file. */
    static CallSerializer fileLock(Path lockFile) {
        Path key = lockFile.toAbsolutePath().normalize();
        return new CallSerializer(JVM_LOCKS.computeIfAbsent(key, path -> new Semaphore(1)), key);
    }

    /** The lock file, or {@code null} when calls are not serialized across processes. */
    Path lockFile() {
        return lockFile;
    }

    Permit acquire() throws IOException, InterruptedException {
        if (semaphore == null) {
            return NO_PERMIT;
        }
        semaphore.acquire();
        if (lockFile == null) {
            return semaphore::release;
        }
        try {
            FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = lockOrClose(channel);
            return () -> {
                try {
                    lock.release();
                    channel.close();
                } catch (IOException e) {
                    LOG.warn("releasing lock file {} failed", lockFile, e);
                } finally {
                    semaphore.release();
                }
            };
        } catch (IOException | RuntimeException e) {
            semaphore.release();
            throw new IOException("lock file " + lockFile + ": " + e.getMessage(), e);
        }
    }

    private static FileLock lockOrClose(FileChannel channel) throws IOException {
        try {
            return channel.lock();
        } catch (IOException e) {
            channel.close();
            throw e;
        }
    }
}
