package io.kdra.plugin.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import org.junit.jupiter.api.Test;

class MockApiServerTest {

    /**
     * Without ClosedOffTheEventLoop a watch closed while its events were being sent blocked the mock's event
     * loop, and the next request failed on the client's 10 s timeout: within a few rounds on a busy machine.
     */
    @Test
    void watchesClosedWhileTheirEventsAreSentLeaveTheServerAnswering() {
        try (MockApiServer server = new MockApiServer()) {
            KubernetesClient client = server.client();
            for (int round = 0; round < 100; round++) {
                Watch watch = client.configMaps().inNamespace("ns").watch(new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, ConfigMap resource) {
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                    }
                });
                for (int i = 0; i < 5; i++) {
                    client.configMaps().inNamespace("ns").resource(new ConfigMapBuilder().withNewMetadata()
                            .withName(round + "-" + i).endMetadata().build()).create();
                }
                watch.close();
                assertThat(client.configMaps().inNamespace("ns").withName(round + "-0").get()).isNotNull();
            }
        }
    }
}
