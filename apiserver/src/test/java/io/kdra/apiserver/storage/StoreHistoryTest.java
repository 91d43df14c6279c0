package io.kdra.apiserver.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** The history keeps superseded and deleted states as JSON only, and replays them as they were committed. */
class StoreHistoryTest {

    private static final String PODS = "/pods";

    @Test
    void replayGivesEveryStateAndItsPredecessorAfterTheyWereCompacted() {
        Store store = new Store(100);
        long start = store.resourceVersion();
        for (String phase : List.of("Pending", "Running", "Succeeded")) {
            store.write(PODS, "ns", "p", false, current -> Store.Change.put(pod(phase)));
        }
        store.write(PODS, "ns", "p", false, current -> Store.Change.delete(current.deepCopy()));
        Recorder recorder = new Recorder();

        store.watch(PODS, start, recorder);

        assertThat(recorder.initial).extracting(WatchEvent::type).containsExactly(WatchEvent.Type.ADDED,
                WatchEvent.Type.MODIFIED, WatchEvent.Type.MODIFIED, WatchEvent.Type.DELETED);
        assertThat(recorder.initial).extracting(event -> event.object().at("/status/phase").asString())
                .containsExactly("Pending", "Running", "Succeeded", "Succeeded");
        assertThat(recorder.initial).extracting(event -> event.previous() == null ? null
                : event.previous().at("/status/phase").asString()).containsExactly(null, "Pending", "Running",
                "Succeeded");
        assertThat(recorder.initial).extracting(event -> event.object().at("/metadata/resourceVersion").asString())
                .containsExactly(version(start + 1), version(start + 2), version(start + 3), version(start + 4));
        assertThat(recorder.initial.get(1).prior()).isSameAs(recorder.initial.get(0).stored());
    }

    @Test
    void historyIsBoundedInBytesAndForgetsTheOldestStatesFirst() {
        long budget = 1024 * 1024;
        Store store = new Store(100_000, budget);
        long start = store.resourceVersion();
        String payload = "x".repeat(100 * 1024);
        for (int i = 0; i < 50; i++) {
            String phase = i + payload;
            store.write(PODS, "ns", "p", false, current -> Store.Change.put(pod(phase)));
        }
        store.write(PODS, "ns", "p", false, current -> Store.Change.delete(current.deepCopy()));

        assertThat(store.historyBytes()).isBetween(budget - 110 * 1024, budget);
        assertThatThrownBy(() -> store.watch(PODS, start, new Recorder()))
                .isInstanceOf(ApiException.class).hasMessageStartingWith("too old resource version: " + start);
        Recorder recent = new Recorder();
        store.watch(PODS, store.resourceVersion() - 5, recent);
        assertThat(recent.initial).extracting(WatchEvent::type).containsExactly(WatchEvent.Type.MODIFIED,
                WatchEvent.Type.MODIFIED, WatchEvent.Type.MODIFIED, WatchEvent.Type.MODIFIED, WatchEvent.Type.DELETED);
    }

    @Test
    void anEventLargerThanTheWholeBudgetIsStillReplayed() {
        Store store = new Store(100, 10);
        long start = store.resourceVersion();
        store.write(PODS, "ns", "p", false, current -> Store.Change.put(pod("Pending")));
        Recorder recorder = new Recorder();

        store.watch(PODS, start, recorder);

        assertThat(recorder.initial).extracting(WatchEvent::type).containsExactly(WatchEvent.Type.ADDED);
    }

    @Test
    void compactedStateKeepsItsJsonAndReadsBackEqual() {
        StoredObject stored = new StoredObject(pod("Running"));
        byte[] json = stored.json();

        stored.compact();

        assertThat(stored.json()).isSameAs(json);
        assertThat(stored.object()).isEqualTo(pod("Running"));
    }

    private static String version(long resourceVersion) {
        return Long.toString(resourceVersion);
    }

    private static ObjectNode pod(String phase) {
        ObjectNode pod = Json.object();
        pod.put("kind", "Pod");
        pod.putObject("metadata").put("name", "p").put("namespace", "ns");
        pod.putObject("status").put("phase", phase);
        return pod;
    }

    private static final class Recorder implements WatchSubscriber {
        final List<WatchEvent> initial = new ArrayList<>();

        @Override
        public void start(List<WatchEvent> events, long resourceVersion) {
            initial.addAll(events);
        }

        @Override
        public boolean offer(WatchEvent event) {
            return true;
        }
    }
}
