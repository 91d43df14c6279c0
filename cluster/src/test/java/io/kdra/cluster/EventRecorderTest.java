package io.kdra.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.apiserver.ApiServer;
import io.kdra.kube.client.KubeClients;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The recorder's events as kubectl describe reads them from the API server: a repeated event is one, counted. */
class EventRecorderTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ApiServer server = ApiServer.builder().build().start();
    private final KubeClients clients = KubeClients.create();
    private final KubernetesClient client = clients.client(server.url(), server.adminToken(),
            server.caCertificatePem());
    private final EventRecorder recorder = EventRecorder.ownThread(client, "kubelet");

    @AfterEach
    void stop() {
        recorder.close();
        clients.close();
        server.close();
    }

    @Test
    void aRepeatedEventIsCountedInTheFirstOne() {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("events").endMetadata()
                .build()).create();
        ObjectReference pod = new ObjectReferenceBuilder().withKind("Pod").withApiVersion("v1")
                .withNamespace("events").withName("gpu-pod").withUid("uid-1").build();
        for (int i = 0; i < 3; i++) {
            recorder.record(pod, EventRecorder.WARNING, "FailedPrepareDynamicResources", "prepare failed: no device");
        }
        recorder.record(pod, EventRecorder.WARNING, "FailedPrepareDynamicResources", "prepare failed: timeout");

        await().atMost(WAIT).untilAsserted(() -> assertThat(events())
                .extracting(Event::getMessage, Event::getCount)
                .containsExactlyInAnyOrder(tuple("prepare failed: no device", 3),
                        tuple("prepare failed: timeout", 1)));
        Event counted = events().stream().filter(event -> event.getCount() == 3).findFirst().orElseThrow();
        assertThat(counted.getFirstTimestamp()).isNotNull();
        assertThat(counted.getLastTimestamp()).isGreaterThanOrEqualTo(counted.getFirstTimestamp());

        // an event deleted meanwhile (a user's kubectl delete events --all) is created again, with its count
        client.v1().events().inNamespace("events").withName(counted.getMetadata().getName()).delete();
        await().atMost(WAIT).until(() -> events().size() == 1);
        recorder.record(pod, EventRecorder.WARNING, "FailedPrepareDynamicResources", "prepare failed: no device");
        await().atMost(WAIT).untilAsserted(() -> assertThat(events())
                .anySatisfy(event -> {
                    assertThat(event.getMessage()).isEqualTo("prepare failed: no device");
                    assertThat(event.getCount()).isEqualTo(4);
                }));
    }

    private List<Event> events() {
        return client.v1().events().inNamespace("events").list().getItems().stream()
                .sorted(Comparator.comparing(event -> event.getMetadata().getName())).toList();
    }
}
