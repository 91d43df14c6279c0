package io.kdra.framework.proxy;

import io.kdra.plugin.cdi.FileOperations;
import java.io.IOException;
import java.util.Base64;

/**
 * CDI spec files written into a node's CDI directory through its proxy pod, as upstream's {@code PodDirIO}: the
 * content goes base64-encoded into a here-document decoded to a temporary file, which {@code mv} then puts in place,
 * so that the container runtime never reads half a file.
 */
final class ExecFileOperations implements FileOperations {

    private static final int LINE_LENGTH = 76;
    private static final byte[] NEWLINE = {'\n'};

    private final PodCommands pod;
    private final String directory;

    /** @param directory the CDI directory as the pod sees it ({@code /cdi}) */
    ExecFileOperations(PodCommands pod, String directory) {
        this.pod = pod;
        this.directory = directory;
    }

    @Override
    public void write(String fileName, byte[] content) throws IOException {
        String path = path(fileName);
        String temporary = path + ".tmp";
        try {
            pod.run("sh", "-c", "base64 -d >'" + temporary + "' <<EOF\n"
                    + Base64.getMimeEncoder(LINE_LENGTH, NEWLINE).encodeToString(content) + "\nEOF");
            pod.run("mv", temporary, path);
        } catch (IOException e) {
            try {
                pod.run("rm", "-rf", temporary);
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    @Override
    public void remove(String fileName) throws IOException {
        pod.run("rm", "-rf", path(fileName));
    }

    private String path(String fileName) {
        if (fileName.isEmpty() || fileName.contains("/") || fileName.contains("'") || fileName.equals(".")
                || fileName.equals("..")) {
            throw new IllegalArgumentException("not a plain file name: " + fileName);
        }
        return directory + "/" + fileName;
    }
}
