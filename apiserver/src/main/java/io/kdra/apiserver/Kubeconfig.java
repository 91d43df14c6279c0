package io.kdra.apiserver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;

/** Writes a kubeconfig with one cluster, one user (a bearer token) and one current context. */
public final class Kubeconfig {

    public static final String CONTEXT = "kdra";

    private Kubeconfig() {}

    /**
     * @param caCertificatePem the server's CA certificate for https, or null for http
     * @return the kubeconfig text
     */
    public static String render(String server, String token, String caCertificatePem) {
        String tls = caCertificatePem == null ? ""
                : "    certificate-authority-data: "
                        + Base64.getEncoder().encodeToString(caCertificatePem.getBytes(StandardCharsets.UTF_8)) + "\n";
        return "apiVersion: v1\n"
                + "kind: Config\n"
                + "clusters:\n"
                + "- name: " + CONTEXT + "\n"
                + "  cluster:\n"
                + "    server: " + server + "\n"
                + tls
                + "users:\n"
                + "- name: kdra-admin\n"
                + "  user:\n"
                + "    token: " + token + "\n"
                + "contexts:\n"
                + "- name: " + CONTEXT + "\n"
                + "  context:\n"
                + "    cluster: " + CONTEXT + "\n"
                + "    user: kdra-admin\n"
                + "    namespace: default\n"
                + "current-context: " + CONTEXT + "\n";
    }

    /** Writes the kubeconfig readable by the owner only (it holds the admin token). */
    public static Path write(Path file, String server, String token, String caCertificatePem) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, render(server, token, caCertificatePem), StandardCharsets.UTF_8);
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the default permissions stay
        }
        return file;
    }
}
