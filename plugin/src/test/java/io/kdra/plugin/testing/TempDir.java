package io.kdra.plugin.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A short directory under /tmp, so that Unix socket paths in it stay far below 108 bytes. */
public final class TempDir implements AutoCloseable {

    private final Path path;

    public TempDir() {
        try {
            path = Files.createTempDirectory(Path.of("/tmp"), "kdra");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path path() {
        return path;
    }

    public Path resolve(String other) {
        return path.resolve(other);
    }

    @Override
    public void close() throws IOException {
        try (Stream<Path> files = Files.walk(path)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
