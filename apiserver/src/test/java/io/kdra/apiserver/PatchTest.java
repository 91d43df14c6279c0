package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
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
                "{\"metadata\":{\"finalizers\":[\"b\"]},\"spec\":{\"containers\":[{\"name\":\"two\",\"image\":\"new\"},"
                        + "{\"name\":\"one\",\"$patch\":\"delete\"}]}}");
        assertThat(patched.getSpec().getContainers()).extracting(c -> c.getName() + "=" + c.getImage())
                .containsExactly("two=new");
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

    private static ResourceSlice slice(String name, String device) {
        return new ResourceSliceBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .withDriver("dra.example.com").withNodeName("node-1").withNewPool().withName("pool")
                .withGeneration(1L).withResourceSliceCount(1L).endPool().addNewDevice().withName(device).endDevice()
                .endSpec().build();
    }
}
