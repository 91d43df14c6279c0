package io.kdra.cluster.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The scheduler's PodScheduled writes, which run after the scheduling attempt that failed. */
class ReporterTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private SchedulerFixture cluster;
    private Reporter reporter;

    @BeforeEach
    void start() {
        cluster = new SchedulerFixture();
        reporter = new Reporter(cluster.schedulerClient, "test-scheduler");
    }

    @AfterEach
    void stop() {
        reporter.close();
        cluster.close();
    }

    @Test
    void aFailureIsNotWrittenOnAPodThatWasBoundSince() throws Exception {
        cluster.node("node-a");
        // another scheduler's pods: the scheduler of the fixture leaves them alone
        Pod failed = cluster.plainPod(SchedulerFixture.podBuilder("bound").editSpec().withSchedulerName("none")
                .endSpec());
        Pod stillPending = cluster.plainPod(SchedulerFixture.podBuilder("pending").editSpec()
                .withSchedulerName("none").endSpec());
        // a retry bound the pod before the failure of the earlier attempt got written
        bind("bound", "node-a");

        reporter.failed(failed, Reporter.UNSCHEDULABLE, "resource claim is in the process of being allocated");
        reporter.failed(stillPending, Reporter.UNSCHEDULABLE, "no devices");

        // writes run in order: once the second is there, the first was handled
        await().atMost(WAIT).until(() -> "no devices".equals(cluster.schedulingMessage("pending")));
        PodCondition scheduled = cluster.scheduledCondition("bound");
        assertThat(scheduled.getStatus()).isEqualTo("True");
    }

    private void bind(String pod, String node) throws Exception {
        String binding = cluster.client.getKubernetesSerialization().asJson(new BindingBuilder().withNewMetadata()
                .withName(pod).endMetadata().withNewTarget().withKind("Node").withName(node).endTarget().build());
        HttpRequest request = cluster.client.getHttpClient().newHttpRequestBuilder()
                .uri(cluster.client.getMasterUrl() + "api/v1/namespaces/default/pods/" + pod + "/binding")
                .post("application/json", binding).build();
        HttpResponse<String> response = cluster.client.getHttpClient().sendAsync(request, String.class)
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(response.code()).as("binding: %s", response.body()).isEqualTo(201);
    }

    @Test
    void aFailureIsWrittenOnThePodAsItIsNow() {
        Pod seen = cluster.plainPod(SchedulerFixture.podBuilder("p").editSpec().withSchedulerName("none").endSpec());
        cluster.client.pods().withName("p").edit(pod -> {
            pod.getMetadata().getLabels().put("changed", "after-the-attempt");
            return pod;
        });

        reporter.failed(seen, Reporter.UNSCHEDULABLE, "0/1 nodes are available");

        await().atMost(WAIT).until(() -> "0/1 nodes are available".equals(cluster.schedulingMessage("p")));
        assertThat(cluster.scheduledCondition("p").getStatus()).isEqualTo("False");
    }
}
