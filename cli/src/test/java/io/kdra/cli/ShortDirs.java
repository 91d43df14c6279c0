package io.kdra.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Directories /tmp/kd-XXXX, so that Unix socket paths in them stay far below 108 bytes. */
final class ShortDirs {

    private ShortDirs() {
    }

    static Path create() throws IOException {
        return Files.createTempDirectory(Path.of("/tmp"), "kd-");
    }

    /** Deletes a directory with everything in it; a directory that does not exist is fine. */
    static void delete(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
