package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PatchTest extends ServerTestBase {

    @Test
    void mergePatchReplacesArrays() {
        var slices = fixture.client.dynamicResourceAllocation().v1().resourcesSlices();
        slices.resource(slice("merge", "gpu-0")).create();
        ResourceSlice patched = slices.withName("merge").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"devices\":[{\"name\":\"gpu-9\"}]}}");
        assertThat(patched.getSpec().getDevices()).extracting(d -> d.getName()).containsExactly("gpu-9");
        assertThat(patched.getMetadata().getGeneration()).isEqualTo(2L);
    }

    @Test
    void jsonPatchAddsAndTests() {
        var slices = fixture.client.dynamicResourceAllocation().v1().resourcesSlices();
        slices.resource(slice("json", "gpu-0")).create();
        ResourceSlice patched = slices.withName("json").patch(PatchContext.of(PatchType.JSON),
                "[{\"op\":\"test\",\"path\":\"/spec/devices/0/name\",\"value\":\"gpu-0\"},"
                        + "{\"op\":\"add\",\"path\":\"/spec/devices/-\",\"value\":{\"name\":\"gpu-1\"}}]");
        assertThat(patched.getSpec().getDevices()).extracting(d -> d.getName()).containsExactly("gpu-0", "gpu-1");
        var failed = fixture.send("PATCH", "/apis/resource.k8s.io/v1/resourceslices/json",
                "application/json-patch+json", "[{\"op\":\"remove\",\"path\":\"/spec/nothing\"}]");
        assertThat(failed.statusCode()).isEqualTo(422);
        assertThat(failed.body()).contains("remove operation does not apply: doc is missing path: \\\"/spec/nothing\\\"");
    }

    @Test
    void strategicMergePatchMergesContainersByName() {
        String ns = fixture.namespace();
        fixture.client.pods().inNamespace(ns).resource(new PodBuilder().withNewMetadata().withName("p")
                .withFinalizers("a").endMetadata().withNewSpec().addNewContainer().withName("one").withImage("i1")
                .endContainer().addNewContainer().withName("two").withImage("i2").endContainer().endSpec().build())
                .create();
        Pod patched = fixture.client.pods().inNamespace(ns).withName("p").patch(
                PatchContext.of(PatchType.STRATEGIC_MERGE),
                "{\"metadata\":{\"finalizers\":[\"b\"]},"
                        + "\"spec\":{\"containers\":[{\"name\":\"two\",\"image\":\"new\"}]}}");
        assertThat(patched.getSpec().getContainers()).extracting(c -> c.getName() + "=" + c.getImage())
                .containsExactly("one=i1", "two=new");
        assertThat(patched.getMetadata().getFinalizers()).containsExactly("a", "b");
        fixture.client.pods().inNamespace(ns).withName("p").edit(p -> new PodBuilder(p).editMetadata()
                .withFinalizers().endMetadata().build());
    }

    @Test
    void serverSideApplyCreatesMergesAndReportsConflicts() {
        var slices = fixture.client.dynamicResourceAllocation().v1().resourcesSlices();
        ResourceSlice applied = slices.resource(slice("ssa", "gpu-0")).fieldManager("alice").serverSideApply();
        assertThat(applied.getMetadata().getManagedFields()).extracting(m -> m.getManager() + "/" + m.getOperation())
                .containsExactly("alice/Apply");

        ResourceSlice bob = slice("ssa", "gpu-0");
        bob.getSpec().getPool().setGeneration(2L);
        assertThatThrownBy(() -> slices.resource(bob).fieldManager("bob").serverSideApply())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(409);
                    assertThat(e.getStatus().getMessage()).isEqualTo(
                            "Apply failed with 1 conflict: conflict with \"alice\" using resource.k8s.io/v1: .spec.pool.generation");
                });
        ResourceSlice forced = slices.resource(bob).fieldManager("bob").forceConflicts().serverSideApply();
        assertThat(forced.getSpec().getPool().getGeneration()).isEqualTo(2L);
        assertThat(forced.getMetadata().getManagedFields()).extracting(m -> m.getManager())
                .containsExactlyInAnyOrder("alice", "bob");
    }

    @Test
    void strategicMergePatchMergesEnvAndVolumesByNameAndHonoursListDirectives() {
        var replicaSets = fixture.client.apps().replicaSets().inNamespace(fixture.namespace());
        replicaSets.resource(replicaSet("env")).create();

        ReplicaSet patched = replicaSets.withName("env").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), """
                {"spec":{"template":{"spec":{
                  "containers":[{"name":"main","env":[{"name":"B","value":"3"},{"name":"C","value":"4"},
                                                      {"name":"A","$patch":"delete"}]}],
                  "volumes":[{"name":"config","configMap":{"name":"cm-2"}},{"name":"extra","emptyDir":{}}]}}}}""");

        PodSpec spec = patched.getSpec().getTemplate().getSpec();
        assertThat(spec.getContainers()).singleElement().satisfies(container -> {
            assertThat(container.getImage()).isEqualTo("busybox");
            assertThat(container.getEnv()).extracting(e -> e.getName() + "=" + e.getValue())
                    .containsExactly("B=3", "C=4");
        });
        assertThat(spec.getVolumes()).extracting(Volume::getName).containsExactly("data", "config", "extra");
        assertThat(spec.getVolumes().get(0).getEmptyDir()).isNotNull();
        assertThat(spec.getVolumes().get(1).getConfigMap().getName()).isEqualTo("cm-2");

        ReplicaSet reordered = replicaSets.withName("env").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), """
                {"spec":{"template":{"spec":{"containers":[{"name":"main",
                  "$setElementOrder/env":[{"name":"C"},{"name":"B"}]}]}}}}""");
        assertThat(reordered.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
                .extracting(EnvVar::getName).containsExactly("C", "B");

        ReplicaSet replaced = replicaSets.withName("env").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), """
                {"spec":{"template":{"spec":{"volumes":[{"name":"only","emptyDir":{}},{"$patch":"replace"}]}}}}""");
        assertThat(replaced.getSpec().getTemplate().getSpec().getVolumes()).extracting(Volume::getName)
                .containsExactly("only");
    }

    @Test
    void strategicMergePatchRetainKeysSwitchesAVolumeSource() {
        var replicaSets = fixture.client.apps().replicaSets().inNamespace(fixture.namespace());
        replicaSets.resource(replicaSet("retain")).create();

        ReplicaSet patched = replicaSets.withName("retain").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), """
                {"spec":{"template":{"spec":{"volumes":[
                  {"name":"data","hostPath":{"path":"/var/data"},"$retainKeys":["hostPath","name"]}]}}}}""");

        Volume data = patched.getSpec().getTemplate().getSpec().getVolumes().get(0);
        assertThat(data.getName()).isEqualTo("data");
        assertThat(data.getHostPath().getPath()).isEqualTo("/var/data");
        assertThat(data.getEmptyDir()).isNull();
        assertThat(patched.getSpec().getTemplate().getSpec().getVolumes()).extracting(Volume::getName)
                .containsExactly("data", "config");
    }

    @Test
    void strategicMergePatchDeletesAndReplacesMaps() {
        var replicaSets = fixture.client.apps().replicaSets().inNamespace(fixture.namespace());
        replicaSets.resource(replicaSet("maps")).create();

        ReplicaSet patched = replicaSets.withName("maps").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), """
                {"metadata":{"annotations":{"$patch":"replace","only":"this"}},
                 "spec":{"template":{"spec":{"securityContext":{"$patch":"delete"}}}}}""");

        assertThat(patched.getMetadata().getAnnotations()).containsExactly(Map.entry("only", "this"));
        assertThat(patched.getSpec().getTemplate().getSpec().getSecurityContext()).isNull();
        assertThat(patched.getSpec().getTemplate().getSpec().getContainers()).hasSize(1);
    }

    @Test
    void strategicMergePatchMergesOwnerReferencesByUidAndDeletesFromFinalizers() {
        String ns = fixture.namespace();
        var cms = fixture.client.configMaps().inNamespace(ns);
        List<OwnerReference> owners = new ArrayList<>();
        for (String name : List.of("owner-a", "owner-b", "owner-c")) {
            ConfigMap owner = cms.resource(new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata()
                    .build()).create();
            owners.add(new OwnerReferenceBuilder().withApiVersion("v1").withKind("ConfigMap").withName(name)
                    .withUid(owner.getMetadata().getUid()).build());
        }
        cms.resource(new ConfigMapBuilder().withNewMetadata().withName("dependent")
                .withOwnerReferences(owners.get(0), owners.get(1)).withFinalizers("example.com/a", "example.com/b")
                .endMetadata().build()).create();

        ConfigMap patched = cms.withName("dependent").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), """
                {"metadata":{"ownerReferences":[
                   {"uid":"%s","apiVersion":"v1","kind":"ConfigMap","name":"owner-b","controller":true},
                   {"uid":"%s","apiVersion":"v1","kind":"ConfigMap","name":"owner-c"},
                   {"uid":"%s","$patch":"delete"}],
                 "$deleteFromPrimitiveList/finalizers":["example.com/a"]}}""".formatted(
                owners.get(1).getUid(), owners.get(2).getUid(), owners.get(0).getUid()));

        assertThat(patched.getMetadata().getOwnerReferences())
                .extracting(r -> r.getName() + "/" + r.getController())
                .containsExactly("owner-b/true", "owner-c/null");
        assertThat(patched.getMetadata().getFinalizers()).containsExactly("example.com/b");

        var missingKey = fixture.send("PATCH", "/api/v1/namespaces/" + ns + "/configmaps/dependent",
                "application/strategic-merge-patch+json",
                "{\"metadata\":{\"ownerReferences\":[{\"name\":\"owner-a\"}]}}");
        assertThat(missingKey.statusCode()).isEqualTo(400);
        assertThat(missingKey.body()).contains("does not contain declared merge key: uid");
        cms.withName("dependent").edit(c -> new ConfigMapBuilder(c).editMetadata().withFinalizers().endMetadata()
                .build());
    }

    @Test
    void strategicMergePatchOfPodStatusMergesConditionsByType() {
        var pods = fixture.client.pods().inNamespace(fixture.namespace());
        pods.resource(new PodBuilder().withNewMetadata().withName("conditions").endMetadata().withNewSpec()
                .addNewContainer().withName("main").withImage("busybox").endContainer().endSpec().build()).create();
        var status = pods.withName("conditions").subresource("status");
        status.patch(PatchContext.of(PatchType.STRATEGIC_MERGE), """
                {"status":{"conditions":[{"type":"PodScheduled","status":"True"},{"type":"Ready","status":"False"}],
                           "podIPs":[{"ip":"10.0.0.1"}]}}""");

        Pod patched = status.patch(PatchContext.of(PatchType.STRATEGIC_MERGE), """
                {"status":{"conditions":[{"type":"Ready","status":"True","reason":"Started"},
                                         {"type":"Initialized","status":"True"}],
                           "podIPs":[{"ip":"fd00::1"}]}}""");

        assertThat(patched.getStatus().getConditions())
                .extracting(c -> c.getType() + "=" + c.getStatus() + "/" + c.getReason())
                .containsExactly("PodScheduled=True/null", "Ready=True/Started", "Initialized=True/null");
        assertThat(patched.getStatus().getPodIPs()).extracting(ip -> ip.getIp()).containsExactly("10.0.0.1", "fd00::1");
        assertThat(patched.getStatus().getPhase()).isEqualTo("Pending");
    }

    @Test
    void strategicMergePatchMergesSchedulingGatesAndTopologySpreadConstraintsByKey() {
        var replicaSets = fixture.client.apps().replicaSets().inNamespace(fixture.namespace());
        replicaSets.resource(replicaSet("gates")).create();
        String spread = "{\"topologyKey\":\"%s\",\"maxSkew\":%d,\"whenUnsatisfiable\":\"DoNotSchedule\"}";
        replicaSets.withName("gates").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
                "{\"spec\":{\"template\":{\"spec\":{\"schedulingGates\":[{\"name\":\"a\"}],"
                        + "\"topologySpreadConstraints\":[" + spread.formatted("zone", 1) + "]}}}}");

        ReplicaSet patched = replicaSets.withName("gates").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
                "{\"spec\":{\"template\":{\"spec\":{\"schedulingGates\":[{\"name\":\"b\"}],"
                        + "\"topologySpreadConstraints\":[" + spread.formatted("zone", 2) + ","
                        + spread.formatted("node", 1) + "]}}}}");

        PodSpec spec = patched.getSpec().getTemplate().getSpec();
        assertThat(spec.getSchedulingGates()).extracting(g -> g.getName()).containsExactly("a", "b");
        assertThat(spec.getTopologySpreadConstraints()).extracting(c -> c.getTopologyKey() + "=" + c.getMaxSkew())
                .containsExactly("zone=2", "node=1");
    }

    private static ReplicaSet replicaSet(String name) {
        return new ReplicaSetBuilder().withNewMetadata().withName(name).addToAnnotations("first", "1").endMetadata()
                .withNewSpec().withReplicas(1).withNewSelector().addToMatchLabels("app", name).endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata().withNewSpec()
                .withNewSecurityContext().withRunAsUser(1000L).endSecurityContext()
                .addNewContainer().withName("main").withImage("busybox")
                .addNewEnv().withName("A").withValue("1").endEnv().addNewEnv().withName("B").withValue("2").endEnv()
                .endContainer()
                .addNewVolume().withName("data").withNewEmptyDir().endEmptyDir().endVolume()
                .addNewVolume().withName("config").withNewConfigMap().withName("cm-1").endConfigMap().endVolume()
                .endSpec().endTemplate().endSpec().build();
    }

    private static ResourceSlice slice(String name, String device) {
        return new ResourceSliceBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .withDriver("dra.example.com").withNodeName("node-1").withNewPool().withName("pool")
                .withGeneration(1L).withResourceSliceCount(1L).endPool().addNewDevice().withName(device).endDevice()
                .endSpec().build();
    }
}
