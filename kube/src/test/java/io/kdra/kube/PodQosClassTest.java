package io.kdra.kube;

import static io.kdra.kube.PodQosClass.BEST_EFFORT;
import static io.kdra.kube.PodQosClass.BURSTABLE;
import static io.kdra.kube.PodQosClass.GUARANTEED;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.kdra.kube.PodQosClass.Requirements;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PodQosClassTest {

    /** 1.36: PodLevelResourcesFixKubeletQOSClass does not exist yet; any {@code spec.resources} decides. */
    private static final FeatureGates V1_36 = FeatureGates.defaults(new KubernetesVersion(1, 36));
    /** 1.37: the fix is on by default; only pod-level resources naming cpu, memory or hugepages decide. */
    private static final FeatureGates V1_37 = FeatureGates.defaults(new KubernetesVersion(1, 37));

    private static final Requirements GUARANTEED_1CPU_1GI = resources("cpu=1,memory=1Gi", "cpu=1,memory=1Gi");
    private static final Requirements BURSTABLE_REQUESTS = resources("cpu=100m,memory=100Mi", "");
    private static final Requirements EMPTY = resources("", "");

    /**
     * Upstream's cases of qos_test.go (containers, init containers, pod-level resources), each with the class at 1.36
     * and at 1.37: they differ only where pod-level resources are present but name none of cpu, memory, hugepages.
     */
    static Stream<Arguments> cases() {
        return Stream.of(
                row("no resources anywhere", null, List.of(EMPTY), BEST_EFFORT, BEST_EFFORT),
                row("one container with equal cpu and memory requests and limits", null,
                        List.of(GUARANTEED_1CPU_1GI), GUARANTEED, GUARANTEED),
                row("two Guaranteed containers", null, List.of(GUARANTEED_1CPU_1GI,
                        resources("cpu=2,memory=2Gi", "cpu=2,memory=2Gi")), GUARANTEED, GUARANTEED),
                row("a Guaranteed and a BestEffort container", null, List.of(GUARANTEED_1CPU_1GI, EMPTY),
                        BURSTABLE, BURSTABLE),
                row("requests only", null, List.of(BURSTABLE_REQUESTS), BURSTABLE, BURSTABLE),
                row("requests below limits", null, List.of(resources("cpu=1,memory=1Gi", "cpu=2,memory=1Gi")),
                        BURSTABLE, BURSTABLE),
                row("a cpu limit but no memory limit", null, List.of(resources("cpu=1", "cpu=1")),
                        BURSTABLE, BURSTABLE),
                row("only resources other than cpu and memory", null,
                        List.of(resources("ephemeral-storage=1Gi", "example.com/gpu=1")), BEST_EFFORT, BEST_EFFORT),
                row("zero cpu and memory", null, List.of(resources("cpu=0,memory=0", "cpu=0,memory=0")),
                        BEST_EFFORT, BEST_EFFORT),
                row("a Guaranteed init container and a Burstable container", null,
                        List.of(GUARANTEED_1CPU_1GI, BURSTABLE_REQUESTS), BURSTABLE, BURSTABLE),
                row("pod level: equal cpu and memory requests and limits, containers without resources",
                        GUARANTEED_1CPU_1GI, List.of(EMPTY, EMPTY), GUARANTEED, GUARANTEED),
                row("pod level: Guaranteed although a container is Burstable", GUARANTEED_1CPU_1GI,
                        List.of(resources("cpu=100m", "")), GUARANTEED, GUARANTEED),
                row("pod level: requests only", resources("cpu=1,memory=1Gi", ""), List.of(GUARANTEED_1CPU_1GI),
                        BURSTABLE, BURSTABLE),
                row("pod level: a cpu limit only", resources("", "cpu=1"), List.of(GUARANTEED_1CPU_1GI),
                        BURSTABLE, BURSTABLE),
                row("pod level: a zero cpu request counts as set", resources("cpu=0", ""),
                        List.of(GUARANTEED_1CPU_1GI), BEST_EFFORT, BEST_EFFORT),
                row("pod level: a hugepages limit only", resources("", "hugepages-2Mi=2Mi"),
                        List.of(GUARANTEED_1CPU_1GI), BEST_EFFORT, BEST_EFFORT),
                row("pod level: empty ({}), Guaranteed containers", EMPTY, List.of(GUARANTEED_1CPU_1GI),
                        BEST_EFFORT, GUARANTEED),
                row("pod level: empty, Burstable containers", EMPTY, List.of(BURSTABLE_REQUESTS),
                        BEST_EFFORT, BURSTABLE),
                row("pod level: only unsupported resources, Burstable containers",
                        resources("ephemeral-storage=1Gi", "example.com/gpu=1"), List.of(BURSTABLE_REQUESTS),
                        BEST_EFFORT, BURSTABLE),
                row("pod level: only unsupported resources, Guaranteed containers",
                        resources("", "ephemeral-storage=1Gi"), List.of(GUARANTEED_1CPU_1GI),
                        BEST_EFFORT, GUARANTEED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void classOfAPod(String name, Requirements podLevel, List<Requirements> containers, String at136, String at137) {
        assertThat(PodQosClass.of(podLevel, containers, V1_36)).as("1.36").isEqualTo(at136);
        assertThat(PodQosClass.of(podLevel, containers, V1_37)).as("1.37").isEqualTo(at137);
    }

    @Test
    void theGateDecidesForAnyVersion() {
        FeatureGates fixed = V1_37;
        FeatureGates unfixed = V1_37.with(FeatureGates.POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS, false);

        assertThat(PodQosClass.of(EMPTY, List.of(GUARANTEED_1CPU_1GI), fixed)).isEqualTo(GUARANTEED);
        assertThat(PodQosClass.of(EMPTY, List.of(GUARANTEED_1CPU_1GI), unfixed)).isEqualTo(BEST_EFFORT);
    }

    @Test
    void readsAFabric8PodWithItsInitContainers() {
        Pod pod = new PodBuilder().withNewSpec()
                .addToInitContainers(new ContainerBuilder().withName("init").withResources(fabric8(BURSTABLE_REQUESTS))
                        .build())
                .addToContainers(new ContainerBuilder().withName("app").withResources(fabric8(GUARANTEED_1CPU_1GI))
                        .build())
                .endSpec().build();

        assertThat(PodQosClass.of(pod, V1_37)).isEqualTo(BURSTABLE);

        pod.getSpec().setResources(new ResourceRequirements());
        assertThat(PodQosClass.of(pod, V1_36)).isEqualTo(BEST_EFFORT);
        assertThat(PodQosClass.of(pod, V1_37)).isEqualTo(BURSTABLE);
    }

    @Test
    void hugeAmountsDoNotOverflow() {
        Requirements huge = resources("cpu=1e999999,memory=1e999999", "cpu=1e999999,memory=1e999999");

        assertThat(PodQosClass.of(null, List.of(huge, huge), V1_37)).isEqualTo(GUARANTEED);
    }

    private static Arguments row(String name, Requirements podLevel, List<Requirements> containers, String at136,
            String at137) {
        return Arguments.of(name, podLevel, containers, at136, at137);
    }

    /** {@code "cpu=1,memory=1Gi"} requests and limits. */
    private static Requirements resources(String requests, String limits) {
        return new Requirements(list(requests), list(limits));
    }

    private static Map<String, Quantity> list(String text) {
        Map<String, Quantity> list = new LinkedHashMap<>();
        Arrays.stream(text.split(",")).filter(entry -> !entry.isEmpty()).forEach(entry -> {
            String[] parts = entry.split("=");
            list.put(parts[0], Quantity.parse(parts[1]));
        });
        return list;
    }

    private static ResourceRequirements fabric8(Requirements requirements) {
        ResourceRequirementsBuilder builder = new ResourceRequirementsBuilder();
        requirements.requests().forEach((name, quantity) -> builder.addToRequests(name, quantity.toFabric8()));
        requirements.limits().forEach((name, quantity) -> builder.addToLimits(name, quantity.toFabric8()));
        return builder.build();
    }
}
