package io.kdra.kube.client;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.http.TlsVersion;
import io.fabric8.kubernetes.client.http.WebSocket;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;

/**
 * fabric8 clients whose requests, watches included, go over Vert.x and whose WebSockets (exec, attach, port-forward)
 * go over the JDK's HTTP client.
 *
 * <p>Vert.x 5's WebSocket client loses a socket the server closes right after the handshake: the close frame marks
 * the socket closed before the connect callback runs (it runs as a later event-loop task), and setting a handler on a
 * closed socket throws. fabric8's Vert.x adapter sets its handlers in that callback, so the exec of a command that
 * ends at once (kdra's kubelets run {@code env} in microseconds) hangs until the request timeout about once in a
 * thousand calls. The JDK client calls {@code onOpen} before it delivers any message or the close, so nothing is lost.
 *
 * <p>The JDK client of each fabric8 client is built on its first WebSocket, so a cluster of many clients that never
 * exec keeps one Vert.x event-loop group and no JDK selector threads.
 */
public final class JdkWebSocketsHttpClientFactory implements HttpClient.Factory {

    private final HttpClient.Factory requests;
    private final HttpClient.Factory webSockets = new JdkHttpClientFactory();

    /** @param requests the Vert.x factory that serves every request but WebSockets */
    public JdkWebSocketsHttpClientFactory(Vertx5HttpClientFactory requests) {
        this.requests = requests;
    }

    @Override
    public HttpClient.Builder newBuilder() {
        return new Builder(requests.newBuilder(), webSockets.newBuilder());
    }

    /** Applies each setting to both clients' builders; the WebSocket client is built on first use. */
    private static final class Builder implements HttpClient.Builder {

        private final HttpClient.Builder requests;
        private final HttpClient.Builder webSockets;

        Builder(HttpClient.Builder requests, HttpClient.Builder webSockets) {
            this.requests = requests;
            this.webSockets = webSockets;
        }

        private Builder both(Consumer<HttpClient.Builder> setting) {
            setting.accept(requests);
            setting.accept(webSockets);
            return this;
        }

        @Override
        public HttpClient build() {
            return new Client(requests.build(), new Lazy(webSockets::build));
        }

        @Override
        public Builder connectTimeout(long timeout, TimeUnit unit) {
            return both(b -> b.connectTimeout(timeout, unit));
        }

        @Override
        public Builder websocketPingInterval(long interval, TimeUnit unit) {
            return both(b -> b.websocketPingInterval(interval, unit));
        }

        @Override
        public Builder addOrReplaceInterceptor(String name, Interceptor interceptor) {
            return both(b -> b.addOrReplaceInterceptor(name, interceptor));
        }

        @Override
        public Builder authenticatorNone() {
            return both(HttpClient.Builder::authenticatorNone);
        }

        @Override
        public Builder tag(Object value) {
            return both(b -> b.tag(value));
        }

        @Override
        public Builder sslContext(KeyManager[] keyManagers, TrustManager[] trustManagers) {
            return both(b -> b.sslContext(keyManagers, trustManagers));
        }

        @Override
        public Builder followAllRedirects() {
            return both(HttpClient.Builder::followAllRedirects);
        }

        @Override
        public Builder proxyAddress(InetSocketAddress address) {
            return both(b -> b.proxyAddress(address));
        }

        @Override
        public Builder proxyAuthorization(String credentials) {
            return both(b -> b.proxyAuthorization(credentials));
        }

        @Override
        public Builder tlsVersions(TlsVersion... versions) {
            return both(b -> b.tlsVersions(versions));
        }

        @Override
        public Builder tlsServerName(String serverName) {
            return both(b -> b.tlsServerName(serverName));
        }

        @Override
        public Builder preferHttp11() {
            return both(HttpClient.Builder::preferHttp11);
        }

        @Override
        public Builder proxyType(HttpClient.ProxyType type) {
            return both(b -> b.proxyType(type));
        }
    }

    /**
     * A client derived from another (fabric8 derives one per request timeout or interceptor change): the settings
     * are replayed on the WebSocket side when it is first needed.
     */
    private static final class DerivedBuilder implements HttpClient.DerivedClientBuilder {

        private final HttpClient.DerivedClientBuilder requests;
        private final Lazy webSocketsParent;
        private final List<Consumer<HttpClient.DerivedClientBuilder>> settings = new ArrayList<>();

        DerivedBuilder(HttpClient.DerivedClientBuilder requests, Lazy webSocketsParent) {
            this.requests = requests;
            this.webSocketsParent = webSocketsParent;
        }

        private DerivedBuilder both(Consumer<HttpClient.DerivedClientBuilder> setting) {
            setting.accept(requests);
            settings.add(setting);
            return this;
        }

        @Override
        public HttpClient build() {
            List<Consumer<HttpClient.DerivedClientBuilder>> replayed = List.copyOf(settings);
            return new Client(requests.build(), new Lazy(() -> {
                HttpClient.DerivedClientBuilder webSockets = webSocketsParent.get().newBuilder();
                replayed.forEach(setting -> setting.accept(webSockets));
                return webSockets.build();
            }));
        }

        @Override
        public DerivedBuilder addOrReplaceInterceptor(String name, Interceptor interceptor) {
            return both(b -> b.addOrReplaceInterceptor(name, interceptor));
        }

        @Override
        public DerivedBuilder authenticatorNone() {
            return both(HttpClient.DerivedClientBuilder::authenticatorNone);
        }

        @Override
        public DerivedBuilder tag(Object value) {
            return both(b -> b.tag(value));
        }
    }

    private static final class Client implements HttpClient {

        private final HttpClient requests;
        private final Lazy webSockets;

        Client(HttpClient requests, Lazy webSockets) {
            this.requests = requests;
            this.webSockets = webSockets;
        }

        @Override
        public DerivedClientBuilder newBuilder() {
            return new DerivedBuilder(requests.newBuilder(), webSockets);
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, Class<T> type) {
            return requests.sendAsync(request, type);
        }

        @Override
        public CompletableFuture<HttpResponse<AsyncBody>> consumeBytes(HttpRequest request,
                AsyncBody.Consumer<List<ByteBuffer>> consumer) {
            return requests.consumeBytes(request, consumer);
        }

        @Override
        public WebSocket.Builder newWebSocketBuilder() {
            return webSockets.get().newWebSocketBuilder();
        }

        @Override
        public HttpRequest.Builder newHttpRequestBuilder() {
            return requests.newHttpRequestBuilder();
        }

        @Override
        public boolean isClosed() {
            return requests.isClosed();
        }

        @Override
        public void close() {
            requests.close();
            webSockets.closeIfBuilt();
        }
    }

    /** A client built once, on first use, and never after it was closed. */
    private static final class Lazy {

        private final Supplier<HttpClient> build;
        private HttpClient client;
        private boolean closed;

        Lazy(Supplier<HttpClient> build) {
            this.build = build;
        }

        synchronized HttpClient get() {
            if (closed) {
                throw new IllegalStateException("the client is closed");
            }
            if (client == null) {
                client = build.get();
            }
            return client;
        }

        synchronized void closeIfBuilt() {
            closed = true;
            if (client != null) {
                client.close();
            }
        }
    }
}
