package io.kdra.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * Directories /tmp/kd-XXXX, so that Unix socket paths in them stay far below 108 bytes: a test's
 * {@code @TempDir(factory = ShortDirs.class)}, which JUnit deletes afterwards.
 */
final class ShortDirs implements TempDirFactory {

    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext context) throws IOException {
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
