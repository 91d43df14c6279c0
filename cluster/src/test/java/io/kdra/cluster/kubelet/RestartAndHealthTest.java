package io.kdra.cluster.kubelet;

import static io.kdra.cluster.kubelet.KubeletFixture.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ResourceHealth;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import io.kdra.plugin.HealthStatus;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.DeviceHealthUpdate;
import io.kdra.testdriver.ExamplePlugin;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Kubelet restarts, slice wiping when a driver goes away, and device health in the pod status. */
class RestartAndHealthTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String DRIVER = "test-driver.cdi.k8s.io";
    private static final KubeletFixture fixture = create();

    private static KubeletFixture create() {
        try {
            return new KubeletFixture();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterAll
    static void close() throws Exception {
        fixture.close();
    }

    private static UnaryOperator<PodBuilder> withClaim(String claimName) {
        return builder -> builder.editSpec().addNewResourceClaim().withName("c").withResourceClaimName(claimName)
                .endResourceClaim().addNewContainer().withName("ctr").withImage("busybox").withNewResources()
                .addNewClaim().withName("c").endClaim().endResources().endContainer().endSpec();
    }

    private static boolean running(Pod pod) {
        Pod current = fixture.get(pod);
        return current != null && "Running".equals(current.getStatus().getPhase());
    }

    private static Set<String> sliceUids(KubeletFixture.Node node, String driver) {
        return fixture.slices(node.name(), driver).stream().map(slice -> slice.getMetadata().getUid())
                .collect(Collectors.toSet());
    }

    @Test
    void aRestartedKubeletWipesAndGetsBackSlicesAndKeepsServingPreparedClaims() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        ExamplePlugin driver = fixture.driver(node, DRIVER);
        await().atMost(WAIT).until(() -> driver.isRegistered() && !fixture.slices(node.name(), DRIVER).isEmpty());
        String namespace = fixture.namespace();
        Pod first = fixture.pod(namespace, "first", withClaim("shared"));
        Pod second = fixture.pod(namespace, "second", withClaim("shared"));
        var results = List.of(result("req", DRIVER, node.name(), "device-00"));
        fixture.allocate(fixture.claim(namespace, "shared", results.get(0)), results, first, second);
        fixture.bind(first, node.name());
        await().atMost(WAIT).until(() -> running(first));
        var container = KubeletFixture.running(node, namespace, "first", "ctr");
        Set<String> before = sliceUids(node, DRIVER);
        assertThat(node.kubelet().registeredPlugins())
                .containsExactly(java.util.Map.entry(DRIVER, List.of(driver.kubeletPlugin().draSocket().toString())));

        node.kubelet().stop();
        assertThat(node.kubelet().registeredPlugins()).isEmpty();
        assertThat(sliceUids(node, DRIVER)).isEqualTo(before);
        node.kubelet().start();

        await().atMost(WAIT).until(() -> {
            Set<String> now = sliceUids(node, DRIVER);
            return !now.isEmpty() && now.stream().noneMatch(before::contains);
        });
        await().atMost(WAIT).until(driver::isRegistered);
        assertThat(KubeletFixture.running(node, namespace, "first", "ctr")).isSameAs(container);
        assertThat(fixture.get(first).getStatus().getContainerStatuses().get(0).getRestartCount()).isZero();

        // The restored entry is not prepared: the next pod using the claim makes the kubelet call the driver again.
        int prepares = driver.countCalls("/NodePrepareResources");
        fixture.bind(second, node.name());
        await().atMost(WAIT).until(() -> running(second));
        assertThat(driver.countCalls("/NodePrepareResources")).isEqualTo(prepares + 1);
        assertThat(KubeletFixture.env(node, namespace, "second", "ctr")).containsEntry("claim_shared_req", "true");

        fixture.admin.resource(fixture.get(first)).delete();
        fixture.admin.resource(fixture.get(second)).delete();
        await().atMost(WAIT).until(driver::grpcCalls, CallMatcher.nodeUnprepareResourcesSucceeded());
        assertThat(container.exit()).isDone();
    }

    @Test
    void aStoppedDriversSlicesAreWipedAfterTheDelay() throws Exception {
        for (String version : List.of("1.33", "1.34")) {
            KubeletFixture.Node node = fixture.kubelet(version,
                    config -> config.withTiming(Timing.FAST.withSliceWipingDelay(Duration.ofSeconds(1))));
            ExamplePlugin driver = fixture.driver(node, DRIVER);
            await().atMost(WAIT).until(() -> driver.isRegistered() && !fixture.slices(node.name(), DRIVER).isEmpty());

            driver.stop();
            await().atMost(WAIT).until(() -> fixture.slices(node.name(), DRIVER).isEmpty());
        }
    }

    @Test
    void aDriverBackWithinTheDelayKeepsItsSlices() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34",
                config -> config.withTiming(Timing.FAST.withSliceWipingDelay(Duration.ofMinutes(10))));
        ExamplePlugin driver = fixture.driver(node, DRIVER);
        await().atMost(WAIT).until(() -> driver.isRegistered() && !fixture.slices(node.name(), DRIVER).isEmpty());
        Set<String> before = sliceUids(node, DRIVER);

        driver.stop();
        await().atMost(WAIT).until(() -> node.kubelet().sliceWipePending(DRIVER));
        ExamplePlugin again = fixture.driver(node, DRIVER);
        await().atMost(WAIT).until(again::isRegistered);
        await().atMost(WAIT).until(() -> !node.kubelet().sliceWipePending(DRIVER));
        assertThat(sliceUids(node, DRIVER)).isEqualTo(before);
    }

    @Test
    void deviceHealthFromTheStreamShowsInTheContainerStatus() throws Exception {
        KubernetesVersion version = KubernetesVersion.parse("1.34");
        KubeletFixture.Node node = fixture.kubelet("1.34", config -> config.withFeatureGates(
                FeatureGates.defaults(version).with(FeatureGates.RESOURCE_HEALTH_STATUS, true)));
        ExamplePlugin driver = fixture.driver(node, DRIVER, 4, plugin -> plugin.healthV1alpha1(true));
        await().atMost(WAIT).until(driver::isRegistered);
        String namespace = fixture.namespace();
        Pod pod = fixture.pod(namespace, "p", withClaim("c"));
        var results = List.of(result("req", DRIVER, node.name(), "device-00"));
        var claim = fixture.allocate(fixture.claim(namespace, "c", results.get(0)), results, pod);
        fixture.bind(pod, node.name());
        await().atMost(WAIT).until(() -> running(pod));
        String cdiId = DRIVER + "/test=claim-" + claim.getMetadata().getUid() + "-req";

        driver.updateDeviceHealth(new DeviceHealthUpdate(node.name(), "device-00", HealthStatus.UNHEALTHY, "hot"));
        await().atMost(WAIT).until(() -> health(pod).equals(List.of("claim:c " + cdiId + " Unhealthy")));
        driver.updateDeviceHealth(new DeviceHealthUpdate(node.name(), "device-00", HealthStatus.HEALTHY, ""));
        await().atMost(WAIT).until(() -> health(pod).equals(List.of("claim:c " + cdiId + " Healthy")));

        // Without the stream, health is unknown.
        driver.stop();
        await().atMost(WAIT).until(() -> health(pod).equals(List.of("claim:c " + cdiId + " Unknown")));
    }

    private static List<String> health(Pod pod) {
        var statuses = fixture.get(pod).getStatus().getContainerStatuses().get(0).getAllocatedResourcesStatus();
        if (statuses == null) {
            return List.of();
        }
        return statuses.stream().flatMap(status -> status.getResources().stream()
                .map((ResourceHealth resource) -> status.getName() + " " + resource.getResourceID() + " "
                        + resource.getHealth()))
                .toList();
    }
}
