package io.kdra.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Comparator;
import java.util.stream.Stream;

/** The cluster's directories on disk. */
final class Directories {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

    private Directories() {}

    /**
     * A new directory {@code /tmp/kdra-XXXXXX}. The JDK's temporary names are 19 digits long; a driver's rolling-update
     * socket {@code <base>/<node>/plugins/<driver>/dra-<pod uid>.sock} must stay under 108 bytes.
     */
    static Path createShortTemporary() throws IOException {
        for (int attempt = 0; ; attempt++) {
            StringBuilder name = new StringBuilder("kdra-");
            for (int i = 0; i < 6; i++) {
                name.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
            }
            try {
                return Files.createDirectory(Path.of("/tmp", name.toString()));
            } catch (FileAlreadyExistsException e) {
                if (attempt > 100) {
                    throw e;
                }
            }
        }
    }

    static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + directory, e);
        }
    }
}
