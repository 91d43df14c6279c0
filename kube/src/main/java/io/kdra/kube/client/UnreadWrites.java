package io.kdra.kube.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Writes whose answer the writer does not read: the request fabric8 would send, on the client's own HTTP client (same
 * TLS, token and user agent), but the object the API server returns is not parsed into the model. fabric8 parses
 * every answer, and for the cluster's components that was a large share of their CPU: the kubelet's and the
 * controller's pod status patches return the whole pod, and nobody looks at it, nor at the events they create.
 *
 * <p>A refused write throws {@link KubernetesClientException} with the API server's code and Status, as fabric8 does,
 * so callers handle conflicts and missing objects the same way.
 */
public final class UnreadWrites {

    private UnreadWrites() {
    }

    /** POSTs the object to its collection (in its namespace when it has one), as {@code resource(object).create()}. */
    public static void create(KubernetesClient client, HasMetadata object) {
        String body = client.getKubernetesSerialization().asJson(object);
        send(client, "POST", collection(client, object.getClass(), object.getMetadata().getNamespace()),
                "application/json", body);
    }

    /**
     * PATCHes a subresource (or the object itself when {@code subresource} is null), as
     * {@code withName(name).subresource(subresource).patch(context, patch)}.
     *
     * @param fieldManager the {@code fieldManager} parameter, or null for none (the user agent then names the manager)
     */
    public static void patch(KubernetesClient client, Class<? extends HasMetadata> type, String namespace,
            String name, String subresource, PatchType patchType, String patch, String fieldManager) {
        StringBuilder url = new StringBuilder(collection(client, type, namespace)).append('/').append(name);
        if (subresource != null) {
            url.append('/').append(subresource);
        }
        if (fieldManager != null) {
            url.append("?fieldManager=").append(URLEncoder.encode(fieldManager, StandardCharsets.UTF_8));
        }
        send(client, "PATCH", url.toString(), patchType.getContentType(), patch);
    }

    private static String collection(KubernetesClient client, Class<? extends HasMetadata> type, String namespace) {
        String master = client.getMasterUrl().toString();
        StringBuilder url = new StringBuilder(master.endsWith("/") ? master.substring(0, master.length() - 1) : master);
        String group = HasMetadata.getGroup(type);
        if (group == null || group.isEmpty()) {
            url.append("/api/").append(HasMetadata.getVersion(type));
        } else {
            url.append("/apis/").append(group).append('/').append(HasMetadata.getVersion(type));
        }
        if (namespace != null && !namespace.isEmpty()) {
            url.append("/namespaces/").append(namespace);
        }
        return url.append('/').append(HasMetadata.getPlural(type)).toString();
    }

    private static void send(KubernetesClient client, String method, String url, String contentType, String body) {
        long timeoutMillis = client.getConfiguration().getRequestTimeout();
        HttpRequest request = client.getHttpClient().newHttpRequestBuilder().uri(url)
                .method(method, contentType, body).build();
        HttpResponse<byte[]> response;
        try {
            var answer = client.getHttpClient().sendAsync(request, byte[].class);
            response = timeoutMillis > 0 ? answer.get(timeoutMillis, TimeUnit.MILLISECONDS) : answer.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KubernetesClientException("interrupted during " + method + " at: " + url, e);
        } catch (ExecutionException e) {
            throw new KubernetesClientException("Failure executing: " + method + " at: " + url + ". "
                    + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new KubernetesClientException("no answer within " + timeoutMillis + " ms to " + method + " at: "
                    + url, e);
        }
        if (!response.isSuccessful()) {
            Status status = status(client, response);
            throw new KubernetesClientException("Failure executing: " + method + " at: " + url + ". Message: "
                    + status.getMessage() + ".", response.code(), status);
        }
    }

    /** The Status the API server answered with, or one made of the code and body when the answer is not a Status. */
    private static Status status(KubernetesClient client, HttpResponse<byte[]> response) {
        String body = response.body() == null ? "" : new String(response.body(), StandardCharsets.UTF_8);
        try {
            Status status = client.getKubernetesSerialization().unmarshal(body, Status.class);
            if (status != null && status.getCode() != null) {
                return status;
            }
        } catch (RuntimeException notAStatus) {
            // a proxy or a crashed server answers with plain text; the code and text are what there is to report
        }
        return new StatusBuilder().withCode(response.code()).withMessage(body.isEmpty() ? response.message() : body)
                .build();
    }
}
