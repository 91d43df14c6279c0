package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kdra.kube.client.UnreadWrites;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link UnreadWrites} against a running API server over TLS: the writes land as fabric8's would (same managers in
 * managedFields), and refusals carry the server's code and Status.
 */
class UnreadWritesTest {

    private static ServerFixture fixture;
    private static KubernetesClient client;

    @BeforeAll
    static void start() {
        fixture = new ServerFixture(ApiServerConfig.defaults().withTls(true));
        client = fixture.client;
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void createWritesTheObjectWithTheManagerFabric8Uses() {
        String namespace = fixture.namespace();
        client.v1().events().inNamespace(namespace).resource(event(namespace, "by-fabric8")).create();
        UnreadWrites.create(client, event(namespace, "unread"));

        Event byFabric8 = client.v1().events().inNamespace(namespace).withName("by-fabric8").get();
        Event unread = client.v1().events().inNamespace(namespace).withName("unread").get();
        assertThat(unread.getReason()).isEqualTo("Started");
        assertThat(unread.getInvolvedObject().getName()).isEqualTo("pod-a");
        assertThat(managers(unread)).isEqualTo(managers(byFabric8)).isNotEmpty();
    }

    @Test
    void patchWritesASubresourceWithTheFieldManagerOrTheUserAgent() {
        String namespace = fixture.namespace();
        for (String name : List.of("by-fabric8", "unread")) {
            client.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata().withName(name)
                    .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("i").endContainer()
                    .endSpec().build()).create();
        }
        String message = "{\"status\":{\"message\":\"patched\"}}";
        client.pods().inNamespace(namespace).withName("by-fabric8").subresource("status")
                .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), message);
        UnreadWrites.patch(client, Pod.class, namespace, "unread", "status", PatchType.STRATEGIC_MERGE, message, null);
        String reason = "{\"status\":{\"reason\":\"Managed\"}}";
        client.pods().inNamespace(namespace).withName("by-fabric8").subresource("status")
                .patch(new PatchContext.Builder().withPatchType(PatchType.JSON_MERGE).withFieldManager("a-manager")
                        .build(), reason);
        UnreadWrites.patch(client, Pod.class, namespace, "unread", "status", PatchType.JSON_MERGE, reason,
                "a-manager");

        Pod byFabric8 = client.pods().inNamespace(namespace).withName("by-fabric8").get();
        Pod unread = client.pods().inNamespace(namespace).withName("unread").get();
        assertThat(unread.getStatus().getMessage()).isEqualTo("patched");
        assertThat(unread.getStatus().getReason()).isEqualTo("Managed");
        assertThat(managers(unread)).isEqualTo(managers(byFabric8)).contains("a-manager");
    }

    @Test
    void aRefusedWriteThrowsWithTheServersCodeAndStatus() {
        String namespace = fixture.namespace();
        assertThatThrownBy(() -> UnreadWrites.patch(client, Pod.class, namespace, "missing", "status",
                PatchType.JSON_MERGE, "{}", null))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(404);
                    assertThat(e.getStatus().getReason()).isEqualTo("NotFound");
                    assertThat(e.getMessage()).contains("PATCH", "missing");
                });

        UnreadWrites.create(client, event(namespace, "twice"));
        assertThatThrownBy(() -> UnreadWrites.create(client, event(namespace, "twice")))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(409);
                    assertThat(e.getStatus().getReason()).isEqualTo("AlreadyExists");
                });

        assertThatThrownBy(() -> UnreadWrites.patch(client, Pod.class, namespace, "missing", "status",
                PatchType.JSON_MERGE, "not json", null))
                .isInstanceOfSatisfying(KubernetesClientException.class, e ->
                        assertThat(e.getCode()).isBetween(400, 499));
    }

    private static Event event(String namespace, String name) {
        return new EventBuilder().withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                .withNewInvolvedObject().withKind("Pod").withName("pod-a").withNamespace(namespace)
                .endInvolvedObject().withType("Normal").withReason("Started").withMessage("Started container c")
                .build();
    }

    private static List<String> managers(io.fabric8.kubernetes.api.model.HasMetadata object) {
        return object.getMetadata().getManagedFields().stream().map(ManagedFieldsEntry::getManager).toList();
    }
}
