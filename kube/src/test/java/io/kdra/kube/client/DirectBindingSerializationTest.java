package io.kdra.kube.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Watch events bound directly give what fabric8's own serialization gives, whatever the event looks like. */
class DirectBindingSerializationTest {

    private final KubernetesSerialization fabric8 = new KubernetesSerialization();
    private final KubernetesSerialization direct = new DirectBindingSerialization();

    @ParameterizedTest
    @ValueSource(strings = {
        // as the API server writes them: apiVersion and kind first
        "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\","
                + "\"namespace\":\"n\",\"resourceVersion\":\"7\",\"labels\":{\"a\":\"b\"},\"managedFields\":[{"
                + "\"manager\":\"m\",\"operation\":\"Update\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":"
                + "{\"f:nodeName\":{}}}}]},\"spec\":{\"nodeName\":\"node-1\",\"containers\":[{\"name\":\"c\","
                + "\"image\":\"i\",\"resources\":{\"claims\":[{\"name\":\"gpu\"}]}}]},\"status\":{\"phase\":"
                + "\"Running\",\"unknownField\":{\"x\":[1,2]}}}}",
        // kind after other members, object before type
        "{\"object\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[]},\"apiVersion\":\"v1\","
                + "\"kind\":\"Pod\"},\"type\":\"ADDED\"}",
        "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\","
                + "\"metadata\":{\"name\":\"c\",\"namespace\":\"n\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":"
                + "\"r\",\"exactly\":{\"deviceClassName\":\"gpu\"}}]}},\"status\":{\"allocation\":{\"devices\":"
                + "{\"results\":[{\"request\":\"r\",\"driver\":\"d\",\"pool\":\"p\",\"device\":\"dev-0\"}]}}}}}",
        "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                + "\"message\":\"too old resource version\",\"reason\":\"Expired\",\"code\":410}}",
        "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
                + "{\"resourceVersion\":\"12\"}}}",
        // no kind, a kind without a class, an extra member: fabric8's way
        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"p\"}}}",
        "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":"
                + "{\"name\":\"w\"},\"spec\":{\"size\":3}}}",
        "{\"type\":\"ADDED\",\"extra\":1,\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\"}}",
    })
    void bindsAsFabric8Does(String json) {
        WatchEvent expected = fabric8.unmarshal(json, WatchEvent.class);
        WatchEvent actual = direct.unmarshal(json, WatchEvent.class);
        assertThat(actual.getType()).isEqualTo(expected.getType());
        assertThat(actual.getObject()).isEqualTo(expected.getObject()).isNotNull();
        assertThat(actual.getObject().getClass()).isEqualTo(expected.getObject().getClass());
    }

    @Test
    void bindsEachKindToItsClass() {
        assertThat(direct.unmarshal("{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"resource.k8s.io/v1\","
                + "\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c\"}}}", WatchEvent.class).getObject())
                .isInstanceOf(ResourceClaim.class);
        assertThat(direct.unmarshal("{\"type\":\"ERROR\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Status\","
                + "\"code\":410}}", WatchEvent.class).getObject())
                .isInstanceOfSatisfying(Status.class, status -> assertThat(status.getCode()).isEqualTo(410));
        assertThat(direct.unmarshal("{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"example.com/v1\","
                + "\"kind\":\"Widget\"}}", WatchEvent.class).getObject())
                .isInstanceOf(GenericKubernetesResource.class);
    }

    @Test
    void managedFieldsBindAsFabric8BindsThem() {
        String json = "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\",\"managedFields\":["
                + "{\"manager\":\"kubelet\",\"operation\":\"Update\",\"subresource\":\"status\",\"fieldsType\":"
                + "\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\".\":{},"
                + "\"f:status\":{}}},\"f:phase\":{}}}},{\"manager\":\"empty\",\"operation\":\"Apply\",\"fieldsV1\":{}},"
                + "{\"manager\":\"none\",\"operation\":\"Update\",\"fieldsV1\":null}]}}";
        Pod expected = fabric8.unmarshal(json, Pod.class);
        Pod actual = direct.unmarshal(json, Pod.class);
        assertThat(actual).isEqualTo(expected);
        assertThat(actual.getMetadata().getManagedFields().get(0).getFieldsV1().getAdditionalProperties())
                .isEqualTo(expected.getMetadata().getManagedFields().get(0).getFieldsV1().getAdditionalProperties())
                .containsOnlyKeys("f:status");
        assertThat(actual.getMetadata().getManagedFields().get(1).getFieldsV1().getAdditionalProperties()).isEmpty();
        assertThat(actual.getMetadata().getManagedFields().get(2).getFieldsV1()).isNull();
        assertThat(direct.asJson(actual)).isEqualTo(fabric8.asJson(expected));
    }

    @Test
    void otherDocumentsAreUnchanged() {
        Pod pod = new PodBuilder().withNewMetadata().withName("p").endMetadata().build();
        assertThat(direct.unmarshal(direct.asJson(pod), Pod.class)).isEqualTo(pod);
        assertThat(direct.<Pod>unmarshal(direct.asJson(pod))).isEqualTo(pod);
    }

    /** Names are not canonicalized here: escaped names, each seen once, must still bind as fabric8 binds them. */
    @Test
    void namesNeverSeenBeforeBindAsFabric8BindsThem() {
        for (int i = 0; i < 50; i++) {
            String uid = UUID.randomUUID().toString();
            String json = "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":"
                    + "\"c-" + i + "\",\"managedFields\":[{\"manager\":\"kube-scheduler\",\"operation\":\"Update\","
                    + "\"fieldsV1\":{\"f:status\":{\"f:reservedFor\":{\"k:{\\\"uid\\\":\\\"" + uid + "\\\"}\":{}}}}}],"
                    + "\"labels\":{\"label-" + uid + "\":\"x\"}}}";
            ResourceClaim expected = fabric8.unmarshal(json, ResourceClaim.class);
            ResourceClaim actual = (ResourceClaim) direct.unmarshal("{\"type\":\"ADDED\",\"object\":" + json + "}",
                    WatchEvent.class).getObject();
            assertThat(actual).isEqualTo(expected);
            assertThat(actual.getMetadata().getLabels()).containsOnlyKeys("label-" + uid);
            assertThat(actual.getMetadata().getManagedFields().get(0).getFieldsV1().getAdditionalProperties()
                    .get("f:status").toString()).contains(uid);
        }
    }
}
