package io.kdra.plugin.cdi;

import java.io.IOException;

/**
 * Writes and removes files in one directory that a container runtime reads CDI specs from, usually
 * {@code /var/run/cdi}. The directory may be local ({@link LocalFileOperations}) or on a remote node (the e2e
 * framework reaches it through the node's proxy pod).
 *
 * <p>File names are plain names without a directory part; implementations reject anything else.
 */
public interface FileOperations {

    /**
     * Creates or replaces a file so that a reader sees either the old or the complete new content, never a part.
     *
     * @param fileName plain file name, for example {@code driver-uid-req.json}
     * @param content the complete new content
     * @throws IOException if the file could not be written; the old content, if any, is then unchanged
     */
    void write(String fileName, byte[] content) throws IOException;

    /**
     * Removes a file. A missing file is not an error, so that removal is idempotent.
     *
     * @param fileName plain file name
     * @throws IOException if an existing file could not be removed
     */
    void remove(String fileName) throws IOException;
}
