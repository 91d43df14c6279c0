package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class WatchTest {

    private static ServerFixture fixture;

    @BeforeAll
    static void start() {
        fixture = new ServerFixture(ApiServerConfig.defaults().withWatchLimits(50, 10_000)
                .withBookmarkIntervalMillis(200));
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void fabric8WatchSeesAddModifyDeleteWithLabelSelector() {
        String ns = fixture.namespace();
        List<String> events = new CopyOnWriteArrayList<>();
        try (var watch = fixture.client.configMaps().inNamespace(ns).withLabel("app", "x").watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, ConfigMap resource) {
                events.add(action + " " + resource.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        })) {
            var cms = fixture.client.configMaps().inNamespace(ns);
            cms.resource(cm("a", Map.of("app", "x"))).create();
            cms.resource(cm("b", Map.of("app", "y"))).create();
            cms.withName("a").edit(c -> new ConfigMapBuilder(c).addToData("k", "v").build());
            cms.withName("b").edit(c -> new ConfigMapBuilder(c).editMetadata().addToLabels("app", "x").endMetadata()
                    .build());
            cms.withName("a").delete();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(events)
                    .containsExactly("ADDED a", "MODIFIED a", "ADDED b", "DELETED a"));
        }
    }

    @Test
    void anObjectLeavingTheSelectorIsDeletedWithItsLastMatchingState() {
        String ns = fixture.namespace();
        List<ConfigMap> deleted = new CopyOnWriteArrayList<>();
        try (var watch = fixture.client.configMaps().inNamespace(ns).withLabel("app", "x").watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, ConfigMap resource) {
                if (action == Action.DELETED) {
                    deleted.add(resource);
                }
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        })) {
            var cms = fixture.client.configMaps().inNamespace(ns);
            cms.resource(cm("leaving", Map.of("app", "x"))).create();
            ConfigMap relabelled = cms.withName("leaving").edit(c -> new ConfigMapBuilder(c).editMetadata()
                    .addToLabels("app", "y").endMetadata().build());

            await().atMost(Duration.ofSeconds(30)).until(() -> deleted.size() == 1);
            assertThat(deleted.get(0).getMetadata().getLabels()).containsEntry("app", "x");
            assertThat(deleted.get(0).getMetadata().getResourceVersion())
                    .isEqualTo(relabelled.getMetadata().getResourceVersion());
        }
    }

    @Test
    void informerSyncsAndFollowsChanges() {
        String ns = fixture.namespace();
        fixture.client.configMaps().inNamespace(ns).resource(cm("before", Map.of())).create();
        List<String> seen = new CopyOnWriteArrayList<>();
        SharedIndexInformer<ConfigMap> informer = fixture.client.configMaps().inNamespace(ns)
                .inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(ConfigMap obj) {
                        seen.add("add " + obj.getMetadata().getName());
                    }

                    @Override
                    public void onUpdate(ConfigMap oldObj, ConfigMap newObj) {
                        seen.add("update " + newObj.getMetadata().getName());
                    }

                    @Override
                    public void onDelete(ConfigMap obj, boolean deletedFinalStateUnknown) {
                        seen.add("delete " + obj.getMetadata().getName());
                    }
                }, 0);
        try {
            await().atMost(Duration.ofSeconds(30)).until(informer::hasSynced);
            fixture.client.configMaps().inNamespace(ns).resource(cm("after", Map.of())).create();
            fixture.client.configMaps().inNamespace(ns).withName("before").delete();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(seen)
                    .contains("add before", "add after", "delete before"));
        } finally {
            informer.close();
        }
    }

    @Test
    void httpWatchByFieldSelectorFromResourceVersion() throws Exception {
        String ns = fixture.namespace();
        var pods = fixture.client.pods().inNamespace(ns);
        String rv = pods.list().getMetadata().getResourceVersion();
        pods.resource(pod("on-node", "node-1")).create();
        pods.resource(pod("elsewhere", "node-2")).create();
        List<String> lines = stream("/api/v1/namespaces/" + ns + "/pods?watch=true&resourceVersion=" + rv
                + "&fieldSelector=spec.nodeName%3Dnode-1&timeoutSeconds=2");
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("{\"type\":\"ADDED\",\"object\":{").contains("\"name\":\"on-node\"");
    }

    @Test
    void compactedResourceVersionIsGone() throws Exception {
        String ns = fixture.namespace();
        String rv = fixture.client.configMaps().inNamespace(ns).list().getMetadata().getResourceVersion();
        for (int i = 0; i < 60; i++) {
            fixture.client.configMaps().inNamespace(ns).resource(cm("c" + i, Map.of())).create();
        }
        List<String> lines = stream("/api/v1/namespaces/" + ns + "/configmaps?watch=1&resourceVersion=" + rv);
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("{\"type\":\"ERROR\"").contains("\"code\":410")
                .contains("\"reason\":\"Expired\"").contains("too old resource version: " + rv);
    }

    @Test
    void bookmarksCarryTheCurrentResourceVersion() throws Exception {
        String ns = fixture.namespace();
        List<String> lines = stream("/api/v1/namespaces/" + ns
                + "/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=1");
        assertThat(lines).isNotEmpty().allMatch(line -> line.startsWith("{\"type\":\"BOOKMARK\""));
        assertThat(lines.get(0)).contains("\"kind\":\"ConfigMap\"", "\"resourceVersion\":\"");
    }

    @Test
    void sendInitialEventsEndsWithAnAnnotatedBookmark() throws Exception {
        String ns = fixture.namespace();
        fixture.client.configMaps().inNamespace(ns).resource(cm("one", Map.of())).create();
        List<String> lines = stream("/api/v1/namespaces/" + ns
                + "/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                + "&allowWatchBookmarks=true&timeoutSeconds=1");
        assertThat(lines.get(0)).startsWith("{\"type\":\"ADDED\"");
        assertThat(lines.get(1)).startsWith("{\"type\":\"BOOKMARK\"")
                .contains("\"k8s.io/initial-events-end\":\"true\"");
    }

    private static List<String> stream(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(fixture.server.url() + path))
                .header("Authorization", "Bearer " + fixture.server.adminToken()).build();
        HttpResponse<Stream<String>> response = fixture.http.send(request, HttpResponse.BodyHandlers.ofLines());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body().filter(line -> !line.isBlank()).toList();
    }

    static ConfigMap cm(String name, Map<String, String> labels) {
        return new ConfigMapBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata().build();
    }

    static io.fabric8.kubernetes.api.model.Pod pod(String name, String node) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().withNodeName(node)
                .addNewContainer().withName("c").withImage("busybox").endContainer().endSpec().build();
    }
}
