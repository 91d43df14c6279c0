package io.kdra.cluster.scenarios;

import static io.kdra.cluster.scenarios.ScenarioCluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.ClaimId;
import io.kdra.testdriver.DriverDevices;
import io.kdra.testdriver.ExamplePlugin;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pods with claims through the whole cluster, as upstream's "kubelet [Feature:DynamicResourceAllocation]" specs run
 * them: scheduler, resourceclaim controller, kubelets, the process runtime and the test driver on two nodes.
 */
class DraPodScenariosTest {

    // ten devices a node: one pod of the config-mapping spec needs nine
    @RegisterExtension
    static final ScenarioExtension scenarios = new ScenarioExtension(
            () -> ScenarioCluster.start(EmbeddedCluster.builder().nodes(2), node -> DriverDevices.numbered(10),
                    (node, plugin) -> { }));
    private final ScenarioCluster cluster = scenarios.cluster();
    private final Scenario scenario = scenarios.newScenario();

    @Test
    void aPodWithATemplateClaimRunsWithTheDriversCdiEnvironment() throws Exception {
        Scenario.PodAndTemplate inline = scenario.podInline();
        scenario.create(inline.template(), inline.pod());

        scenario.awaitRunning(inline.pod());
        Pod pod = scenario.get(inline.pod());
        String node = pod.getSpec().getNodeName();
        String claimName = scenario.generatedClaimName(pod);
        assertThat(claimName).startsWith("tester-1-my-inline-claim-");
        ResourceClaim claim = scenario.claim(claimName);
        assertThat(claim.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(owner -> assertThat(owner.getUid()).isEqualTo(pod.getMetadata().getUid()));
        assertThat(claim.getMetadata().getFinalizers()).contains("resource.kubernetes.io/delete-protection");
        assertThat(claim.getStatus().getAllocation().getDevices().getResults()).singleElement()
                .satisfies(result -> {
                    assertThat(result.getDriver()).isEqualTo(ScenarioCluster.DRIVER);
                    assertThat(result.getPool()).isEqualTo(node);
                    assertThat(result.getRequest()).isEqualTo(Scenario.REQUEST);
                });
        assertThat(claim.getStatus().getReservedFor()).extracting(r -> r.getName() + "/" + r.getUid())
                .containsExactly(pod.getMetadata().getName() + "/" + pod.getMetadata().getUid());
        await().atMost(WAIT).until(() -> scenario.events(pod, "Scheduled").stream().anyMatch(event -> event
                .getMessage().equals("Successfully assigned " + scenario.namespace() + "/tester-1 to " + node)));

        scenario.testPod(pod, Scenario.USER_ENV,
                "claim_" + claimName.replace('-', '_') + "_my_request=true");
        ExamplePlugin driver = cluster.driver(node);
        assertThat(driver.grpcCalls()).matches(CallMatcher.nodePrepareResourcesSucceeded(),
                CallMatcher.nodePrepareResourcesSucceeded().mismatch(driver.grpcCalls()));

        admin().pods().inNamespace(scenario.namespace()).withName("tester-1").delete();
        await().atMost(WAIT).until(() -> scenario.get(pod) == null);
        await().atMost(WAIT).until(() -> scenario.claim(claimName) == null);
        await().atMost(WAIT).until(driver::grpcCalls, CallMatcher.nodeUnprepareResourcesSucceeded());
    }

    @Test
    void anExternalClaimIsSharedByThePodsAndContainersUsingIt() throws Exception {
        ResourceClaim claim = scenario.externalClaim();
        scenario.create(claim);
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Pod pod = scenario.podExternal("external-claim", 3);
            scenario.create(pod);
            pods.add(pod);
        }

        for (Pod pod : pods) {
            scenario.testPod(pod, Scenario.USER_ENV, "claim_external_claim_my_request=true");
        }
        assertThat(pods).extracting(pod -> scenario.get(pod).getSpec().getNodeName()).containsOnly(
                scenario.claim("external-claim").getStatus().getAllocation().getDevices().getResults().get(0)
                        .getPool());
        assertThat(scenario.claim("external-claim").getStatus().getReservedFor()).extracting(r -> r.getName())
                .containsExactlyInAnyOrder("tester-1", "tester-2", "tester-3");

        // "must deallocate after use": the last user gone, the claim is deallocated and loses its finalizer.
        admin().pods().inNamespace(scenario.namespace()).delete();
        await().atMost(WAIT).untilAsserted(() -> {
            ResourceClaim current = scenario.claim("external-claim");
            assertThat(current.getStatus().getReservedFor()).isNullOrEmpty();
            assertThat(current.getStatus().getAllocation()).isNull();
            assertThat(current.getMetadata().getFinalizers()).isNullOrEmpty();
        });
    }

    @Test
    void initContainersRunWithTheClaimBeforeTheContainers() throws Exception {
        Scenario.PodAndTemplate inline = scenario.podInline();
        Pod pod = new PodBuilder(inline.pod()).editSpec().addNewInitContainer().withName("init")
                .withImage("busybox").withCommand("sh", "-c", "env | grep " + Scenario.USER_ENV)
                .withNewResources().addNewClaim().withName("my-inline-claim").endClaim().endResources()
                .endInitContainer().endSpec().build();
        scenario.create(inline.template(), pod);

        scenario.testPod(pod);
        ContainerStatus init = scenario.get(pod).getStatus().getInitContainerStatuses().get(0);
        assertThat(init.getState().getTerminated().getExitCode()).isZero();
        assertThat(init.getState().getTerminated().getReason()).isEqualTo("Completed");
        assertThat(admin().pods().inNamespace(scenario.namespace()).withName("tester-1").inContainer("init")
                .getLog()).contains(Scenario.USER_ENV);
    }

    @Test
    void aFailedPrepareIsAWarningEventAndIsRetriedUntilItSucceeds() throws Exception {
        List<Runnable> lift = cluster.drivers().stream().map(ExamplePlugin::setNodePrepareResourcesFailureMode)
                .toList();
        Scenario.PodAndTemplate inline = scenario.podInline();
        scenario.create(inline.template(), inline.pod());

        String expected = "Failed to prepare dynamic resources: prepare dynamic resources: NodePrepareResources: "
                + "rpc error: code = Unknown desc = prepare resource claims: " + ExamplePlugin.PREPARE_FAILURE;
        await().atMost(WAIT).until(() -> scenario.events(inline.pod(), "FailedPrepareDynamicResources").stream()
                .anyMatch(event -> "Warning".equals(event.getType()) && expected.equals(event.getMessage())));
        await().atMost(WAIT).untilAsserted(() -> {
            Pod pending = scenario.get(inline.pod());
            assertThat(pending.getStatus().getPhase()).isEqualTo("Pending");
            assertThat(pending.getStatus().getContainerStatuses()).singleElement().satisfies(status -> assertThat(
                    status.getState().getWaiting().getReason()).isEqualTo("ContainerCreating"));
        });
        ExamplePlugin driver = cluster.driver(scenario.get(inline.pod()).getSpec().getNodeName());
        await().atMost(WAIT).until(driver::grpcCalls, CallMatcher.nodePrepareResourcesFailedWith(
                ExamplePlugin.PREPARE_FAILURE));
        await().atMost(WAIT).until(() -> driver.countCalls(CallMatcher.NODE_PREPARE_RESOURCES) >= 2);

        int failedCalls = driver.countCalls(CallMatcher.NODE_PREPARE_RESOURCES);
        lift.forEach(Runnable::run);
        scenario.testPod(inline.pod());
        assertThat(driver.countCalls(CallMatcher.NODE_PREPARE_RESOURCES)).isGreaterThan(failedCalls);
    }

    @Test
    void aForceDeletedPodsClaimIsUnprepared() throws Exception {
        Scenario.PodAndTemplate inline = scenario.podInline();
        scenario.create(inline.template(), inline.pod());
        scenario.awaitRunning(inline.pod());
        ExamplePlugin driver = cluster.driver(scenario.get(inline.pod()).getSpec().getNodeName());
        assertThat(driver.preparedClaims()).hasSize(1);

        admin().pods().inNamespace(scenario.namespace()).withName("tester-1").withGracePeriod(0).delete();

        await().atMost(WAIT).until(() -> driver.preparedClaims().isEmpty());
        assertThat(driver.grpcCalls()).matches(CallMatcher.nodeUnprepareResourcesSucceeded());
    }

    @Test
    void aClaimNoContainerUsesIsPreparedToo() throws Exception {
        Scenario.PodAndTemplate inline = scenario.podInline();
        Pod pod = new PodBuilder(inline.pod()).editSpec().editContainer(0).withNewResources().endResources()
                .endContainer().endSpec().build();
        scenario.create(inline.template(), pod);

        scenario.awaitRunning(pod);
        assertThat(cluster.driver(scenario.get(pod).getSpec().getNodeName()).preparedClaims()).isNotEmpty();
    }

    @Test
    void aFinishedPodReleasesItsReservationAndItsGeneratedClaimIsDeleted() {
        Scenario.PodAndTemplate inline = scenario.podInline();
        Pod generated = new PodBuilder(inline.pod()).editSpec().editContainer(0).withCommand("true").endContainer()
                .endSpec().build();
        scenario.create(scenario.externalClaim());
        Pod external = new PodBuilder(scenario.podExternal()).editSpec().editContainer(0).withCommand("true")
                .endContainer().endSpec().build();
        scenario.create(inline.template(), generated, external);
        String claimName = scenario.generatedClaimName(generated);

        for (Pod pod : List.of(generated, external)) {
            await().atMost(WAIT).until(() -> "Succeeded".equals(scenario.get(pod).getStatus().getPhase()));
        }
        await().atMost(WAIT).until(() -> scenario.claim(claimName) == null);
        await().atMost(WAIT).until(() -> {
            ResourceClaim claim = scenario.claim("external-claim");
            return claim.getStatus().getReservedFor() == null || claim.getStatus().getReservedFor().isEmpty();
        });
        cluster.awaitNothingPrepared();
    }

    @Test
    void aRestartingPodKeepsItsGeneratedClaim() {
        // upstream's "does not delete generated claims when pod is restarting"
        Scenario.PodAndTemplate inline = scenario.podInline();
        Pod pod = new PodBuilder(inline.pod()).editSpec().withRestartPolicy("Always").editContainer(0)
                .withCommand("sh", "-c", "exit 1").endContainer().endSpec().build();
        scenario.create(inline.template(), pod);
        String claimName = scenario.generatedClaimName(pod);

        await().atMost(WAIT).until(() -> {
            var statuses = scenario.get(pod).getStatus().getContainerStatuses();
            return statuses != null && !statuses.isEmpty() && statuses.get(0).getRestartCount() >= 2;
        });
        ResourceClaim claim = scenario.claim(claimName);
        assertThat(claim).isNotNull();
        assertThat(claim.getMetadata().getDeletionTimestamp()).isNull();
        assertThat(claim.getStatus().getReservedFor()).extracting(r -> r.getName()).containsExactly("tester-1");
    }

    @Test
    void configsAndDevicesAreMappedToTheRightContainers() throws Exception {
        // upstream's "must map configs and devices to the right containers"
        ResourceClaim all = threeRequestClaim("all");
        ResourceClaim container0 = threeRequestClaim("container0");
        ResourceClaim container1 = threeRequestClaim("container1");
        Pod pod = new PodBuilder(scenario.pod()).editSpec().withResourceClaims(
                        new PodResourceClaimBuilder().withName("all").withResourceClaimName("all").build(),
                        new PodResourceClaimBuilder().withName("container0").withResourceClaimName("container0")
                                .build(),
                        new PodResourceClaimBuilder().withName("container1").withResourceClaimName("container1")
                                .build())
                .withContainers(
                        new ContainerBuilder().withName("container0").withImage("busybox").withNewResources()
                                .addNewClaim().withName("all").endClaim().addNewClaim().withName("container0")
                                .endClaim().endResources().build(),
                        new ContainerBuilder().withName("container1").withImage("busybox").withNewResources()
                                .addNewClaim().withName("all").endClaim().addNewClaim().withName("container1")
                                .withRequest("req1").endClaim().endResources().build())
                .endSpec().build();
        scenario.create(all, container0, container1, pod);

        scenario.awaitRunning(pod);
        List<String> allContainers = List.of("user_all_config0=true", "user_all_config1=true",
                "user_all_config2=true", "claim_all_req0=true", "claim_all_req1=true", "claim_all_req2=true");
        List<String> expected0 = new ArrayList<>(allContainers);
        expected0.addAll(List.of("user_container0_config0=true", "user_container0_config1=true",
                "user_container0_config2=true", "claim_container0_req0=true", "claim_container0_req1=true",
                "claim_container0_req2=true"));
        List<String> expected1 = new ArrayList<>(allContainers);
        expected1.addAll(List.of("user_container1_config0=true", "user_container1_config1=true",
                "claim_container1_req1=true"));
        assertThat(driverEnv(pod, "container0")).containsExactlyInAnyOrderElementsOf(expected0);
        assertThat(driverEnv(pod, "container1")).containsExactlyInAnyOrderElementsOf(expected1);
    }

    /** Requests req0..req2 and three configs: one for all requests, one for req1, one for req2. */
    private ResourceClaim threeRequestClaim(String name) {
        DeviceRequest request = scenario.claimSpec().getDevices().getRequests().get(0);
        List<DeviceRequest> requests = new ArrayList<>();
        List<DeviceClaimConfiguration> configs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            requests.add(new DeviceRequestBuilder(request).withName("req" + i).build());
            configs.add(new DeviceClaimConfigurationBuilder().withRequests(i == 0 ? List.of() : List.of("req" + i))
                    .withNewOpaque().withDriver(ScenarioCluster.DRIVER)
                    .withParameters(Map.of(name + "_config" + i, "true")).endOpaque().build());
        }
        return new ResourceClaimBuilder().withNewMetadata().withName(name).withNamespace(scenario.namespace())
                .endMetadata().withNewSpec().withNewDevices().withRequests(requests).withConfig(configs)
                .endDevices().endSpec().build();
    }

    /** The container's variables set by the test driver, as upstream's full match selects them. */
    private List<String> driverEnv(Pod pod, String container) throws Exception {
        return scenario.env(pod, container).lines()
                .filter(line -> line.matches("^(?:admin|user|claim)_[a-zA-Z0-9_]*=.*$")).toList();
    }

    @Test
    void aPodWithAnAlreadyAllocatedAndANewClaimRuns() {
        // upstream's "requests an already allocated and a new claim for a pod"
        ResourceClaim first = scenario.externalClaim();
        ResourceClaim second = scenario.externalClaim();
        scenario.create(first, second);
        Pod pod1 = scenario.podExternal(first.getMetadata().getName(), 1);
        scenario.create(pod1);
        scenario.awaitRunning(pod1);

        Pod pod2 = new PodBuilder(scenario.podExternal(first.getMetadata().getName(), 1)).editSpec()
                .addNewResourceClaim().withName("second").withResourceClaimName(second.getMetadata().getName())
                .endResourceClaim().editContainer(0).editResources().addNewClaim().withName("second").endClaim()
                .endResources().endContainer().endSpec().build();
        scenario.create(pod2);

        scenario.awaitRunning(pod2);
        assertThat(scenario.get(pod2).getSpec().getNodeName()).isEqualTo(scenario.get(pod1).getSpec().getNodeName());
    }

    @Test
    void aNewPodWaitsWhileTheOldClaimOfAForceDeletedPodIsStillPrepared() throws Exception {
        // upstream's "blocks new pod after force-delete"
        String node = cluster.nodeNames().get(0);
        ExamplePlugin driver = cluster.driver(node);
        ResourceClaim claim = scenario.externalClaim();
        Pod pod = new PodBuilder(scenario.podExternal()).editSpec()
                .withNodeSelector(Map.of("kubernetes.io/hostname", node)).endSpec().build();
        scenario.create(claim, pod);
        scenario.awaitRunning(pod);
        String oldUid = scenario.claim("external-claim").getMetadata().getUid();

        Runnable lift = driver.setNodeUnprepareResourcesFailureMode();
        try {
            admin().pods().inNamespace(scenario.namespace()).withName(pod.getMetadata().getName())
                    .withGracePeriod(0).delete();
            await().atMost(WAIT).until(() -> scenario.get(pod) == null);
            admin().resources(ResourceClaim.class).inNamespace(scenario.namespace()).withName("external-claim")
                    .withGracePeriod(0).delete();
            await().atMost(WAIT).until(() -> scenario.claim("external-claim") == null);
            await().atMost(WAIT).until(driver::grpcCalls, CallMatcher.nodeUnprepareResourcesFailed());
            assertThat(driver.preparedClaims()).containsExactly(new ClaimId("external-claim", oldUid));

            scenario.create(new ResourceClaimBuilder(claim).editMetadata().withUid(null).endMetadata().build(),
                    new PodBuilder(pod).editMetadata().withUid(null).endMetadata().build());
            await().atMost(WAIT).until(() -> scenario.events(pod, "FailedPrepareDynamicResources").stream()
                    .anyMatch(event -> event.getMessage().contains("old ResourceClaim with same name external-claim"
                            + " and different UID " + oldUid + " still exists")));
        } finally {
            lift.run();
        }
        scenario.awaitRunning(pod);
        String newUid = scenario.claim("external-claim").getMetadata().getUid();
        await().atMost(WAIT).until(() -> driver.preparedClaims().equals(List.of(new ClaimId("external-claim",
                newUid))));
    }

    private io.fabric8.kubernetes.client.KubernetesClient admin() {
        return cluster.admin();
    }
}
