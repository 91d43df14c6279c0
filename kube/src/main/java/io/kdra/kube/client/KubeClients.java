package io.kdra.kube.client;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds fabric8 clients that share one Vert.x instance and one JSON (de)serialization, so a cluster of many API
 * clients (a scheduler, controllers, a kubelet per node, a driver per node) runs on one small event-loop group instead
 * of one per client, and builds and keeps the model's Jackson (de)serializers once. That serialization binds watch
 * events straight into the model ({@link DirectBindingSerialization}).
 *
 * <p>fabric8's Vert.x 5 HTTP client creates a Vert.x instance per client unless its factory is given one; with one
 * given it neither creates nor closes it. {@link #close()} closes every client built here, then the Vert.x instance.
 * WebSockets (exec, attach, port-forward) go over the JDK's client instead ({@link JdkWebSocketsHttpClientFactory}).
 */
public final class KubeClients implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KubeClients.class);

    /** Read by Vert.x when an instance is created; fabric8 sets it too, so names resolve through the JDK. */
    private static final String DISABLE_DNS_RESOLVER = "vertx.disableDnsResolver";

    private final Vertx vertx;
    private final JdkWebSocketsHttpClientFactory httpClients;
    // fabric8 builds its Jackson (de)serializers per KubernetesSerialization, and each client makes its own: with a
    // client per node that meant introspecting Pod, Node, Lease ... again for every node, and keeping every copy.
    private final KubernetesSerialization serialization = new DirectBindingSerialization();
    private final List<KubernetesClient> clients = new ArrayList<>();
    private boolean closed;

    private KubeClients(Vertx vertx) {
        this.vertx = vertx;
        this.httpClients = new JdkWebSocketsHttpClientFactory(new Vertx5HttpClientFactory(vertx));
    }

    /** A factory owning a new Vert.x instance with daemon threads and the default event-loop count. */
    public static KubeClients create() {
        VertxOptions options = new VertxOptions()
                .setUseDaemonThread(true)
                .setFileSystemOptions(
                        new FileSystemOptions().setFileCachingEnabled(false).setClassPathResolvingEnabled(false));
        return new KubeClients(createVertx(options));
    }

    /**
     * A client of a kdra server (or any API server reached with a bearer token): namespace {@code default}, and no
     * retries of failed requests, so callers see a server's answer at once, as the tests and control-plane
     * components want.
     *
     * @param masterUrl the server's URL, e.g. {@code https://127.0.0.1:6443}
     * @param bearerToken the token sent as {@code Authorization: Bearer}
     * @param caCertPem the PEM of the CA that signed the server's certificate; null for plain HTTP
     */
    public KubernetesClient client(String masterUrl, String bearerToken, String caCertPem) {
        Objects.requireNonNull(masterUrl, "masterUrl");
        ConfigBuilder config = new ConfigBuilder(Config.empty())
                .withMasterUrl(masterUrl)
                .withOauthToken(bearerToken)
                .withNamespace("default")
                .withRequestRetryBackoffLimit(0);
        if (caCertPem != null) {
            config.withCaCertData(Base64.getEncoder().encodeToString(caCertPem.getBytes(StandardCharsets.UTF_8)));
        }
        return client(config.build());
    }

    /** A client with the given configuration, e.g. one read from a kubeconfig file. */
    public KubernetesClient client(Config config) {
        Objects.requireNonNull(config, "config");
        synchronized (clients) {
            if (closed) {
                throw new IllegalStateException("these clients are closed");
            }
            KubernetesClient client = new KubernetesClientBuilder().withConfig(httpWatches(config))
                    .withHttpClientFactory(httpClients)
                    .withKubernetesSerialization(serialization).build();
            clients.add(client);
            return client;
        }
    }

    /**
     * The configuration with watches as HTTP streams, as client-go makes them. fabric8 would open a WebSocket per
     * watch, and WebSockets here go over the JDK's client: a JDK client, a selector thread and a thread pool for
     * every client that watches (a kubelet per node), where HTTP streams share the Vert.x event loops.
     */
    public static Config httpWatches(Config config) {
        return new ConfigBuilder(config).withOnlyHttpWatches(true).build();
    }

    /** The shared Vert.x instance, for servers that should run on the same event loops as the clients. */
    public Vertx vertx() {
        return vertx;
    }

    /** Closes every client built here (closing one twice is harmless), then the shared Vert.x instance. */
    @Override
    public void close() {
        List<KubernetesClient> toClose;
        synchronized (clients) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = List.copyOf(clients);
            clients.clear();
        }
        for (KubernetesClient client : toClose) {
            try {
                client.close();
            } catch (RuntimeException e) {
                LOG.warn("closing a client of {} failed", client.getMasterUrl(), e);
            }
        }
        vertx.close().await();
    }

    private static synchronized Vertx createVertx(VertxOptions options) {
        String before = System.getProperty(DISABLE_DNS_RESOLVER);
        System.setProperty(DISABLE_DNS_RESOLVER, "true");
        try {
            return Vertx.vertx(options);
        } finally {
            if (before == null) {
                System.clearProperty(DISABLE_DNS_RESOLVER);
            } else {
                System.setProperty(DISABLE_DNS_RESOLVER, before);
            }
        }
    }
}
