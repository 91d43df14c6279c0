package io.kdra.plugin.cdi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link FileOperations} on a local directory. Writes go to a hidden temporary file in the same directory, which is
 * then renamed over the target, so a runtime scanning the directory never reads a half-written spec. Files get mode
 * {@code 0644}, as the upstream test driver's files.
 */
public final class LocalFileOperations implements FileOperations {

    private static final Logger LOG = LoggerFactory.getLogger(LocalFileOperations.class);

    private final Path directory;

    /**
     * @param directory the directory to write into; created on the first write if missing
     */
    public LocalFileOperations(Path directory) {
        this.directory = directory.toAbsolutePath();
    }

    /** The directory files are written into. */
    public Path directory() {
        return directory;
    }

    @Override
    public void write(String fileName, byte[] content) throws IOException {
        Path target = resolve(fileName);
        Files.createDirectories(directory);
        Path temporary = Files.createTempFile(directory, "." + fileName + ".", ".tmp");
        try {
            Files.write(temporary, content);
            Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-r--r--"));
            // On one file system a rename replaces the target atomically.
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temporary);
        }
        LOG.debug("wrote {} ({} bytes)", target, content.length);
    }

    @Override
    public void remove(String fileName) throws IOException {
        if (Files.deleteIfExists(resolve(fileName))) {
            LOG.debug("removed {}", directory.resolve(fileName));
        }
    }

    private Path resolve(String fileName) {
        if (fileName == null || fileName.isEmpty() || fileName.contains("/") || fileName.equals(".")
                || fileName.equals("..")) {
            throw new IllegalArgumentException("\"" + fileName + "\" is not a plain file name");
        }
        return directory.resolve(fileName);
    }
}
