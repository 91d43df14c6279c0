package io.kdra.cluster.scenarios;

import static io.kdra.cluster.scenarios.ScenarioCluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpec;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpecBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kdra.cluster.RuntimeKind;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One test's namespace and objects, named as upstream's e2e {@code utils.Builder} names them: the class
 * {@code <namespace>-class} selecting the test driver, pods {@code tester-<n>}, claims {@code external-claim},
 * {@code external-claim-2}, ..., requests {@code my-request} with the opaque claim config {@code {"a":"b"}}, so that
 * the driver's CDI environment of a container has {@code user_a=b}.
 */
final class Scenario {

    static final String REQUEST = "my-request";
    /** The claim parameters' variable in a container's environment. */
    static final String USER_ENV = "user_a=b";

    private final ScenarioCluster cluster;
    private final KubernetesClient admin;
    private final String namespace;
    private int pods;
    private int claims;

    Scenario(ScenarioCluster cluster, String namespace) {
        this.cluster = cluster;
        this.admin = cluster.admin();
        this.namespace = namespace;
        create(deviceClass(className(), "device.driver == \"" + ScenarioCluster.DRIVER + "\""));
    }

    String namespace() {
        return namespace;
    }

    String className() {
        return namespace + "-class";
    }

    static DeviceClass deviceClass(String name, String celSelector) {
        return new DeviceClassBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .addNewSelector().withNewCel().withExpression(celSelector).endCel().endSelector().endSpec().build();
    }

    /** One device of {@code className}, with the claim parameters {@code {"a":"b"}} for the test driver. */
    ResourceClaimSpec claimSpec(String className) {
        return new ResourceClaimSpecBuilder().withNewDevices().addNewRequest().withName(REQUEST).withNewExactly()
                .withDeviceClassName(className).endExactly().endRequest().addNewConfig().withNewOpaque()
                .withDriver(ScenarioCluster.DRIVER).withParameters(Map.of("a", "b")).endOpaque().endConfig()
                .endDevices().build();
    }

    ResourceClaimSpec claimSpec() {
        return claimSpec(className());
    }

    /** {@code external-claim}, then {@code external-claim-2}, ... (not created yet). */
    ResourceClaim externalClaim() {
        claims++;
        String name = claims == 1 ? "external-claim" : "external-claim-" + claims;
        return new ResourceClaimBuilder().withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                .withSpec(claimSpec()).build();
    }

    /** A pod {@code tester-<n>} whose container idles like pause; restart policy Never. */
    Pod pod() {
        pods++;
        return new PodBuilder().withNewMetadata().withName("tester-" + pods).withNamespace(namespace).endMetadata()
                .withNewSpec().withRestartPolicy("Never").addNewContainer().withName("ctr").withImage("busybox")
                .endContainer().endSpec().build();
    }

    record PodAndTemplate(Pod pod, ResourceClaimTemplate template) {}

    /** A pod with the pod claim {@code my-inline-claim} from a template named like the pod. */
    PodAndTemplate podInline() {
        return podInline(claimSpec(), 1);
    }

    PodAndTemplate podInline(ResourceClaimSpec spec, int containers) {
        Pod pod = pod();
        String name = pod.getMetadata().getName();
        ResourceClaimTemplate template = new ResourceClaimTemplateBuilder().withNewMetadata().withName(name)
                .withNamespace(namespace).endMetadata().withNewSpec().withSpec(spec).endSpec().build();
        pod = new PodBuilder(pod).editSpec().addNewResourceClaim().withName("my-inline-claim")
                .withResourceClaimTemplateName(name).endResourceClaim()
                .withContainers(containersUsing("my-inline-claim", containers)).endSpec().build();
        return new PodAndTemplate(pod, template);
    }

    /** A pod whose containers use the pod claim {@code resource-claim}, the claim {@code claimName}. */
    Pod podExternal(String claimName, int containers) {
        Pod pod = pod();
        return new PodBuilder(pod).editSpec().addNewResourceClaim().withName("resource-claim")
                .withResourceClaimName(claimName).endResourceClaim()
                .withContainers(containersUsing("resource-claim", containers)).endSpec().build();
    }

    Pod podExternal() {
        return podExternal("external-claim", 1);
    }

    /** Containers {@code with-resource}, {@code with-resource-1}, ... using the pod claim. */
    static List<Container> containersUsing(String podClaim, int count) {
        List<Container> containers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            containers.add(new ContainerBuilder().withName(i == 0 ? "with-resource" : "with-resource-" + i)
                    .withImage("busybox").withNewResources().addNewClaim().withName(podClaim).endClaim()
                    .endResources().build());
        }
        return containers;
    }

    /** Creates the objects in order. */
    void create(HasMetadata... objects) {
        for (HasMetadata object : objects) {
            admin.resource(object).create();
        }
    }

    Pod get(String podName) {
        return cluster.pod(namespace, podName);
    }

    Pod get(Pod pod) {
        return get(pod.getMetadata().getName());
    }

    ResourceClaim claim(String name) {
        return admin.resources(ResourceClaim.class).inNamespace(namespace).withName(name).get();
    }

    /** The name of the claim generated for a pod's claim from a template. */
    String generatedClaimName(Pod pod) {
        await().atMost(WAIT).until(() -> get(pod).getStatus().getResourceClaimStatuses() != null
                && !get(pod).getStatus().getResourceClaimStatuses().isEmpty());
        return get(pod).getStatus().getResourceClaimStatuses().get(0).getResourceClaimName();
    }

    boolean isRunning(Pod pod) {
        Pod current = get(pod);
        return current != null && current.getStatus() != null && "Running".equals(current.getStatus().getPhase());
    }

    void awaitRunning(Pod pod) {
        await().atMost(WAIT).until(() -> isRunning(pod));
    }

    /**
     * As upstream's {@code TestPod}: the pod runs, and with the process runtime every container's environment has
     * the variables (default {@value #USER_ENV}).
     */
    void testPod(Pod pod, String... env) throws Exception {
        awaitRunning(pod);
        if (cluster.cluster().config().runtime() != RuntimeKind.PROCESS) {
            return;
        }
        String[] expected = env.length == 0 ? new String[] {USER_ENV} : env;
        for (Container container : get(pod).getSpec().getContainers()) {
            String out = env(pod, container.getName());
            for (String variable : expected) {
                assertThat(out).as("env of %s/%s", pod.getMetadata().getName(), container.getName())
                        .contains(variable + "\n");
            }
        }
    }

    /** {@code env} run in a container through {@code pods/exec}. */
    String env(Pod pod, String container) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (ExecWatch watch = admin.pods().inNamespace(namespace).withName(pod.getMetadata().getName())
                .inContainer(container).writingOutput(out).writingError(err).exec("env")) {
            assertThat(watch.exitCode().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isZero();
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
        return out.toString(StandardCharsets.UTF_8);
    }

    PodCondition scheduledCondition(Pod pod) {
        Pod current = get(pod);
        if (current == null || current.getStatus() == null || current.getStatus().getConditions() == null) {
            return null;
        }
        return current.getStatus().getConditions().stream().filter(c -> "PodScheduled".equals(c.getType()))
                .findFirst().orElse(null);
    }

    /** Waits until the pod is unschedulable ({@code PodScheduled=False}) and returns the condition's message. */
    String awaitUnschedulable(Pod pod) {
        await().atMost(WAIT).until(() -> {
            PodCondition condition = scheduledCondition(pod);
            return condition != null && "False".equals(condition.getStatus());
        });
        assertThat(get(pod).getSpec().getNodeName()).isNull();
        return scheduledCondition(pod).getMessage();
    }

    List<Event> events(Pod pod, String reason) {
        return cluster.events(namespace, pod.getMetadata().getName(), reason);
    }

    /**
     * Upstream's teardown: the workloads that would recreate pods are deleted, the pods are deleted and gone
     * (finalizers a test added, such as upstream's {@code e2e-test/dont-delete-me}, are removed), then the claims, and
     * no driver has a claim prepared.
     */
    void tearDown() {
        admin.apps().deployments().inNamespace(namespace).delete();
        admin.apps().replicaSets().inNamespace(namespace).delete();
        for (Pod pod : admin.pods().inNamespace(namespace).list().getItems()) {
            if (pod.getMetadata().getFinalizers() != null && !pod.getMetadata().getFinalizers().isEmpty()) {
                // a merge patch without resourceVersion: the kubelet and the controllers write the pod meanwhile
                admin.pods().inNamespace(namespace).withName(pod.getMetadata().getName())
                        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
            }
        }
        admin.pods().inNamespace(namespace).delete();
        await().atMost(WAIT).until(() -> admin.pods().inNamespace(namespace).list().getItems().isEmpty());
        admin.resources(ResourceClaim.class).inNamespace(namespace).delete();
        cluster.awaitNothingPrepared();
        await().atMost(WAIT).until(() -> admin.resources(ResourceClaim.class).inNamespace(namespace).list()
                .getItems().isEmpty());
    }
}
