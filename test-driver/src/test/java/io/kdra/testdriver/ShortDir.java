package io.kdra.testdriver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A directory /tmp/kd-XXXX, so that Unix socket paths in it stay far below 108 bytes. */
final class ShortDir implements AutoCloseable {

    private final Path path;

    ShortDir() {
        try {
            path = Files.createTempDirectory(Path.of("/tmp"), "kd-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path resolve(String name) {
        return path.resolve(name);
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
