package io.kdra.cluster.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.Watch;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A pod with a claim is bound to a fitting node after its claim was allocated and reserved, in upstream's order. */
class SchedulerBindingTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private SchedulerFixture cluster;

    @BeforeEach
    void start() {
        cluster = new SchedulerFixture();
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void templateClaimIsAllocatedReservedAndThePodBound() {
        cluster.node("node-a");
        cluster.node("node-b");
        cluster.slice("node-b", 2);
        cluster.deviceClass(SchedulerFixture.CLASS);
        List<ResourceClaim> claimVersions = new CopyOnWriteArrayList<>();
        try (Watch watch = cluster.client.resources(ResourceClaim.class).watch(SchedulerFixture.recorder(claimVersions))) {
            Pod pod = cluster.templatePod("p");
            ResourceClaim claim = cluster.generateClaim(pod, SchedulerFixture.CLASS);

            await().atMost(WAIT).until(() -> "node-b".equals(cluster.nodeOf("p")));

            ResourceClaim allocated = cluster.claimNamed(claim.getMetadata().getName());
            assertThat(allocated.getMetadata().getFinalizers()).containsExactly(DynamicResources.FINALIZER);
            assertThat(allocated.getStatus().getAllocation().getDevices().getResults()).singleElement()
                    .satisfies(result -> {
                        assertThat(result.getDriver()).isEqualTo(SchedulerFixture.DRIVER);
                        assertThat(result.getPool()).isEqualTo("node-b");
                        assertThat(result.getRequest()).isEqualTo("req");
                    });
            assertThat(allocated.getStatus().getAllocation().getNodeSelector().getNodeSelectorTerms().get(0)
                    .getMatchFields().get(0).getValues()).containsExactly("node-b");
            assertThat(allocated.getStatus().getReservedFor()).singleElement().satisfies(reference -> {
                assertThat(reference.getResource()).isEqualTo("pods");
                assertThat(reference.getName()).isEqualTo("p");
                assertThat(reference.getUid()).isEqualTo(pod.getMetadata().getUid());
            });
            // the finalizer first, then allocation and reservation in one write, then the binding
            await().atMost(WAIT).until(() -> claimVersions.size() >= 3);
            assertThat(claimVersions.get(1).getMetadata().getFinalizers()).contains(DynamicResources.FINALIZER);
            assertThat(claimVersions.get(1).getStatus()).satisfiesAnyOf(
                    status -> assertThat(status).isNull(),
                    status -> assertThat(status.getAllocation()).isNull());
            assertThat(claimVersions.get(2).getStatus().getAllocation()).isNotNull();
            assertThat(claimVersions.get(2).getStatus().getReservedFor()).hasSize(1);
            assertThat(Long.parseLong(cluster.pod("p").getMetadata().getResourceVersion()))
                    .isGreaterThan(Long.parseLong(claimVersions.get(2).getMetadata().getResourceVersion()));
        }
        await().atMost(WAIT).untilAsserted(() -> assertThat(events("p")).anySatisfy(event -> {
            assertThat(event.getReason()).isEqualTo("Scheduled");
            assertThat(event.getType()).isEqualTo("Normal");
            assertThat(event.getMessage()).isEqualTo("Successfully assigned default/p to node-b");
            assertThat(event.getSource().getComponent()).isEqualTo("default-scheduler");
        }));
    }

    @Test
    void podWithoutClaimsIsBound() {
        cluster.node("node-a");
        cluster.plainPod(SchedulerFixture.podBuilder("plain"));
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("plain")));
    }

    @Test
    void podOfAnotherSchedulerIsLeftAlone() {
        cluster.node("node-a");
        cluster.plainPod(SchedulerFixture.podBuilder("other").editSpec().withSchedulerName("other-scheduler")
                .endSpec());
        cluster.plainPod(SchedulerFixture.podBuilder("mine"));
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("mine")));
        assertThat(cluster.nodeOf("other")).isNull();
        assertThat(cluster.scheduledCondition("other")).isNull();
    }

    @Test
    void podWaitsWithoutStatusWritesUntilItsGeneratedClaimExists() {
        cluster.node("node-a");
        cluster.slice("node-a", 1);
        cluster.deviceClass(SchedulerFixture.CLASS);
        Pod pod = cluster.templatePod("p");
        cluster.plainPod(SchedulerFixture.podBuilder("marker"));
        // a later pod got its turn, so the first one was looked at and is waiting
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("marker")));
        assertThat(cluster.scheduledCondition("p")).isNull();

        cluster.generateClaim(pod, SchedulerFixture.CLASS);
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("p")));
    }

    @Test
    void templateClaimThatNeedsNoClaimIsSkipped() {
        cluster.node("node-a");
        cluster.templatePod("p");
        cluster.client.pods().withName("p").editStatus(pod -> new PodBuilder(pod).editStatus()
                .withResourceClaimStatuses(new PodResourceClaimStatus("gpu", null)).endStatus().build());
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("p")));
    }

    @Test
    void closeStopsEveryThreadOfTheScheduler() {
        cluster.node("node-a");
        cluster.plainPod(SchedulerFixture.podBuilder("p"));
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("p")));
        cluster.close();
        cluster = null;
        assertThat(Thread.getAllStackTraces().keySet()).noneSatisfy(thread -> assertThat(thread.getName())
                .startsWith("default-scheduler"));
    }

    private List<Event> events(String pod) {
        return cluster.client.v1().events().withField("involvedObject.name", pod).list().getItems();
    }
}
