package io.kdra.plugin;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * The registration socket's file name, as upstream's kubeletplugin picks it since kubernetes#139623 (the fix of
 * kubernetes#139166, with the bound corrected by kubernetes#141815). Without rolling updates it is
 * {@code <driver>-reg.sock}. With rolling updates the first of these whose full path is shorter than 108 bytes:
 * <ol>
 *   <li>{@code <driver>-<pod uid>-reg.sock}, which keeps the whole UID for debugging;
 *   <li>{@code <driver>-<uid digest>-reg.sock}, the first 8 bytes of SHA-256(pod UID), so the driver name stays
 *       visible;
 *   <li>{@code dra-<digest>-reg.sock}, the first 16 bytes of SHA-256(driver, NUL, pod UID), for very long names.
 * </ol>
 * Digests are URL-safe unpadded Base64 (no {@code /} in a file name). With the default registry directory and a
 * 36-character pod UID, only 28 characters of driver name fit the first form.
 */
final class RegistrationSocketName {

    private static final String SUFFIX = "-reg.sock";

    private RegistrationSocketName() {}

    static String choose(Path registryDirectory, String driverName, String rollingUpdateUid) {
        if (rollingUpdateUid == null) {
            return driverName + SUFFIX;
        }
        String full = driverName + "-" + rollingUpdateUid + SUFFIX;
        if (fits(registryDirectory, full)) {
            return full;
        }
        String shortUid = driverName + "-" + digest(8, rollingUpdateUid) + SUFFIX;
        if (fits(registryDirectory, shortUid)) {
            return shortUid;
        }
        return "dra-" + digest(16, driverName + "\0" + rollingUpdateUid) + SUFFIX;
    }

    private static boolean fits(Path directory, String fileName) {
        return directory.resolve(fileName).toString().getBytes(StandardCharsets.UTF_8).length
                < GrpcSocketServer.MAX_SOCKET_PATH_BYTES;
    }

    private static String digest(int bytes, String input) {
        try {
            byte[] sum = MessageDigest.getInstance("SHA-256").digest(input.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(sum, bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }
}
