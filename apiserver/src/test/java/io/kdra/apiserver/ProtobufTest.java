package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kdra.apiserver.json.Json;
import io.kubernetes.client.proto.IntStr;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.Resource;
import io.kubernetes.client.proto.Runtime;
import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Apps;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Protobuf bodies and answers over plain HTTP, written and read with the typed messages client-java-proto generates
 * from the upstream {@code generated.proto} files, so the server's generic transcoding is checked against an
 * independent encoder.
 */
class ProtobufTest extends ServerTestBase {

    private static final String PROTOBUF = "application/vnd.kubernetes.protobuf";
    private static final byte[] MAGIC = {'k', '8', 's', 0};

    @Test
    void aConfigMapSentAsProtobufIsAnsweredInProtobuf() throws Exception {
        String ns = fixture.namespace();
        V1.ConfigMap sent = V1.ConfigMap.newBuilder()
                .setMetadata(Meta.ObjectMeta.newBuilder().setName("pb").putLabels("app", "demo"))
                .putData("greeting", "hello").putData("empty", "")
                .putBinaryData("blob", ByteString.copyFrom(new byte[] {0, 1, (byte) 0xff})).build();

        HttpResponse<byte[]> created = send("POST", "/api/v1/namespaces/" + ns + "/configmaps", PROTOBUF,
                envelope("v1", "ConfigMap", sent));

        assertThat(created.statusCode()).as(text(created)).isEqualTo(201);
        assertThat(created.headers().firstValue("Content-Type")).hasValue(PROTOBUF);
        Runtime.Unknown answer = unwrap(created.body());
        assertThat(answer.getTypeMeta().getApiVersion()).isEqualTo("v1");
        assertThat(answer.getTypeMeta().getKind()).isEqualTo("ConfigMap");
        V1.ConfigMap stored = V1.ConfigMap.parseFrom(answer.getRaw());
        assertThat(stored.getMetadata().getUid()).isNotEmpty();
        assertThat(stored.getMetadata().getCreationTimestamp().getSeconds()).isPositive();
        assertThat(stored.getMetadata().getLabelsMap()).containsEntry("app", "demo");
        assertThat(stored.getDataMap()).containsEntry("greeting", "hello").containsEntry("empty", "");
        assertThat(stored.getBinaryDataMap().get("blob").toByteArray()).containsExactly(0, 1, 0xff);

        var json = fixture.client.configMaps().inNamespace(ns).withName("pb").get();
        assertThat(json.getBinaryData()).containsEntry("blob", "AAH/");
        assertThat(json.getMetadata().getManagedFields()).singleElement()
                .satisfies(entry -> assertThat(entry.getOperation()).isEqualTo("Update"));

        HttpResponse<byte[]> list = send("GET", "/api/v1/namespaces/" + ns + "/configmaps", null, null);
        assertThat(unwrap(list.body()).getTypeMeta().getKind()).isEqualTo("ConfigMapList");
        V1.ConfigMapList items = V1.ConfigMapList.parseFrom(unwrap(list.body()).getRaw());
        assertThat(items.getItemsList()).extracting(item -> item.getMetadata().getName()).containsExactly("pb");
        assertThat(items.getMetadata().getResourceVersion()).isNotEmpty();
        assertThat(items.getItems(0).getMetadata().getManagedFields(0).getFieldsV1().getRaw().toStringUtf8())
                .contains("\"f:data\"");
    }

    @Test
    void specialTypesAndInlineStructsKeepTheirJsonShape() throws Exception {
        String ns = fixture.namespace();
        V1.LocalObjectReference settings = V1.LocalObjectReference.newBuilder().setName("settings").build();
        V1.Container container = V1.Container.newBuilder().setName("web").setImage("nginx")
                .setResources(V1.ResourceRequirements.newBuilder()
                        .putLimits("cpu", Resource.Quantity.newBuilder().setString("500m").build()))
                .addEnv(V1.EnvVar.newBuilder().setName("MODE").setValueFrom(V1.EnvVarSource.newBuilder()
                        .setConfigMapKeyRef(V1.ConfigMapKeySelector.newBuilder().setLocalObjectReference(settings)
                                .setKey("mode"))))
                .setReadinessProbe(V1.Probe.newBuilder().setHandler(V1.ProbeHandler.newBuilder()
                        .setHttpGet(V1.HTTPGetAction.newBuilder().setPath("/")
                                .setPort(IntStr.IntOrString.newBuilder().setType(1).setStrVal("http")))))
                .build();
        V1Apps.Deployment sent = V1Apps.Deployment.newBuilder()
                .setMetadata(Meta.ObjectMeta.newBuilder().setName("web"))
                .setSpec(V1Apps.DeploymentSpec.newBuilder().setReplicas(0)
                        .setSelector(Meta.LabelSelector.newBuilder().putMatchLabels("app", "web"))
                        .setStrategy(V1Apps.DeploymentStrategy.newBuilder().setType("RollingUpdate")
                                .setRollingUpdate(V1Apps.RollingUpdateDeployment.newBuilder()
                                        .setMaxSurge(IntStr.IntOrString.newBuilder().setType(1).setStrVal("25%"))
                                        .setMaxUnavailable(IntStr.IntOrString.newBuilder().setType(0).setIntVal(1))))
                        .setTemplate(V1.PodTemplateSpec.newBuilder()
                                .setMetadata(Meta.ObjectMeta.newBuilder().putLabels("app", "web"))
                                .setSpec(V1.PodSpec.newBuilder().addContainers(container)
                                        .addVolumes(V1.Volume.newBuilder().setName("config")
                                                .setVolumeSource(V1.VolumeSource.newBuilder().setConfigMap(
                                                        V1.ConfigMapVolumeSource.newBuilder()
                                                                .setLocalObjectReference(settings)))))))
                .build();
        String path = "/apis/apps/v1/namespaces/" + ns + "/deployments";

        assertThat(send("POST", path, PROTOBUF, envelope("apps/v1", "Deployment", sent)).statusCode())
                .isEqualTo(201);

        JsonNode json = Json.parse(fixture.send("GET", path + "/web", null, null).body()
                .getBytes(StandardCharsets.UTF_8));
        JsonNode spec = json.get("spec");
        assertThat(spec.get("replicas").asInt()).isZero();
        assertThat(spec.at("/strategy/rollingUpdate/maxSurge").asString()).isEqualTo("25%");
        assertThat(spec.at("/strategy/rollingUpdate/maxUnavailable").isInt()).isTrue();
        JsonNode pod = spec.at("/template/spec");
        assertThat(pod.at("/containers/0/resources/limits/cpu").asString()).isEqualTo("500m");
        assertThat(Json.string(pod.at("/containers/0/env/0")))
                .isEqualTo("{\"name\":\"MODE\",\"valueFrom\":{\"configMapKeyRef\":{\"name\":\"settings\",\"key\":\"mode\"}}}");
        assertThat(Json.string(pod.at("/containers/0/readinessProbe")))
                .isEqualTo("{\"httpGet\":{\"path\":\"/\",\"port\":\"http\"}}");
        assertThat(Json.string(pod.at("/volumes/0"))).isEqualTo("{\"name\":\"config\",\"configMap\":{\"name\":\"settings\"}}");

        V1Apps.Deployment read = V1Apps.Deployment.parseFrom(unwrap(send("GET", path + "/web", null, null).body())
                .getRaw());
        assertThat(read.getSpec().getTemplate().getSpec().getContainers(0)).isEqualTo(container);
        assertThat(read.getSpec().getStrategy()).isEqualTo(sent.getSpec().getStrategy());
        assertThat(read.getSpec().getTemplate().getSpec().getVolumes(0)).isEqualTo(sent.getSpec().getTemplate()
                .getSpec().getVolumes(0));
    }

    @Test
    void aWatchStreamsLengthPrefixedWatchEvents() throws Exception {
        String ns = fixture.namespace();
        String path = "/api/v1/namespaces/" + ns + "/configmaps";
        HttpRequest request = HttpRequest.newBuilder(URI.create(fixture.server.url() + path
                        + "?watch=true&timeoutSeconds=30"))
                .header("Authorization", "Bearer " + fixture.server.adminToken())
                .header("Accept", PROTOBUF + ", application/json").build();
        HttpResponse<InputStream> watch = fixture.http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(watch.headers().firstValue("Content-Type")).hasValue(PROTOBUF + ";stream=watch");

        fixture.client.configMaps().inNamespace(ns).resource(new ConfigMapBuilder().withNewMetadata()
                .withName("watched").endMetadata().addToData("k", "v").build()).create();
        fixture.client.configMaps().inNamespace(ns).withName("watched").delete();

        try (DataInputStream frames = new DataInputStream(watch.body())) {
            Meta.WatchEvent added = Meta.WatchEvent.parseFrom(frames.readNBytes(frames.readInt()));
            assertThat(added.getType()).isEqualTo("ADDED");
            Runtime.Unknown object = unwrap(added.getObject().getRaw().toByteArray());
            assertThat(object.getTypeMeta().getKind()).isEqualTo("ConfigMap");
            assertThat(V1.ConfigMap.parseFrom(object.getRaw()).getDataMap()).containsEntry("k", "v");
            Meta.WatchEvent deleted = Meta.WatchEvent.parseFrom(frames.readNBytes(frames.readInt()));
            assertThat(deleted.getType()).isEqualTo("DELETED");
        }
    }

    @Test
    void acceptNegotiationFallsBackToJsonWhereThereIsNoProtobufForm() throws Exception {
        String both = PROTOBUF + ", application/json";
        HttpResponse<byte[]> table = send("GET", "/api/v1/namespaces", "application/json;as=Table;v=v1;g=meta.k8s.io, "
                + both, null, null);
        assertThat(text(table)).startsWith("{\"kind\":\"Table\"");

        String betaClasses = "/apis/resource.k8s.io/v1beta2/deviceclasses";
        HttpResponse<byte[]> beta = send("GET", betaClasses, both, null, null);
        assertThat(beta.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(text(beta)).startsWith("{\"kind\":\"DeviceClassList\"");
        HttpResponse<byte[]> onlyProtobuf = send("GET", betaClasses, PROTOBUF, null, null);
        assertThat(onlyProtobuf.statusCode()).isEqualTo(406);
        HttpResponse<byte[]> betaBody = send("POST", betaClasses, "application/json", PROTOBUF, new byte[] {1});
        assertThat(betaBody.statusCode()).isEqualTo(415);
        assertThat(text(betaBody)).contains("the body of the request was in an unknown format");

        HttpResponse<byte[]> v1 = send("GET", "/apis/resource.k8s.io/v1/deviceclasses", both, null, null);
        assertThat(unwrap(v1.body()).getTypeMeta().getKind()).isEqualTo("DeviceClassList");

        HttpResponse<byte[]> missing = send("GET", "/api/v1/namespaces/default/configmaps/absent", both, null, null);
        assertThat(missing.statusCode()).isEqualTo(404);
        Meta.Status status = Meta.Status.parseFrom(unwrap(missing.body()).getRaw());
        assertThat(status.getReason()).isEqualTo("NotFound");
        assertThat(status.getCode()).isEqualTo(404);
        assertThat(status.getMessage()).isEqualTo("configmaps \"absent\" not found");
    }

    @Test
    void aDeleteMayCarryProtobufDeleteOptions() throws Exception {
        String ns = fixture.namespace();
        fixture.client.configMaps().inNamespace(ns).resource(new ConfigMapBuilder().withNewMetadata()
                .withName("kept").endMetadata().build()).create();
        String path = "/api/v1/namespaces/" + ns + "/configmaps/kept";
        Meta.DeleteOptions dryRun = Meta.DeleteOptions.newBuilder().addDryRun("All")
                .setPropagationPolicy("Background").build();

        assertThat(send("DELETE", path, PROTOBUF, envelope("v1", "DeleteOptions", dryRun)).statusCode())
                .isEqualTo(200);
        assertThat(fixture.client.configMaps().inNamespace(ns).withName("kept").get()).isNotNull();

        Meta.DeleteOptions badPolicy = Meta.DeleteOptions.newBuilder().setPropagationPolicy("Sideways").build();
        HttpResponse<byte[]> rejected = send("DELETE", path, PROTOBUF, envelope("v1", "DeleteOptions", badPolicy));
        assertThat(rejected.statusCode()).isEqualTo(422);
        assertThat(send("DELETE", path, PROTOBUF, envelope("meta.k8s.io/v1", "DeleteOptions",
                Meta.DeleteOptions.getDefaultInstance())).statusCode()).isEqualTo(200);
        assertThat(fixture.client.configMaps().inNamespace(ns).withName("kept").get()).isNull();
    }

    @Test
    void malformedProtobufIsA400NamingTheProblem() {
        String path = "/api/v1/namespaces/" + fixture.namespace() + "/configmaps";
        byte[] valid = envelope("v1", "ConfigMap", V1.ConfigMap.newBuilder()
                .setMetadata(Meta.ObjectMeta.newBuilder().setName("fine")).build());
        Map<String, byte[]> bodies = Map.of(
                "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
                "{\"kind\":\"ConfigMap\"}".getBytes(StandardCharsets.UTF_8),
                "empty body", MAGIC,
                "empty data", new byte[0],
                "truncated", Arrays.copyOf(valid, valid.length - 3),
                "Secret in version \\\"v1\\\" cannot be handled as a ConfigMap",
                envelope("v1", "Secret", V1.Secret.getDefaultInstance()),
                "no kind \\\"Widget\\\" is registered for version \\\"example.com/v1\\\"",
                envelope("example.com/v1", "Widget", V1.ConfigMap.getDefaultInstance()),
                "Object 'Kind' is missing", concat(MAGIC, new byte[] {0x12, 0x01, 0x07}),
                "the fieldsV1 is no JSON", envelope("v1", "ConfigMap", V1.ConfigMap.newBuilder()
                        .setMetadata(Meta.ObjectMeta.newBuilder().setName("raw").addManagedFields(
                                Meta.ManagedFieldsEntry.newBuilder().setFieldsV1(Meta.FieldsV1.newBuilder()
                                        .setRaw(ByteString.copyFromUtf8("{not json")))))
                        .build()));
        bodies.forEach((problem, body) -> {
            HttpResponse<byte[]> response = send("POST", path, "application/json", PROTOBUF, body);
            assertThat(response.statusCode()).as(problem).isEqualTo(400);
            assertThat(text(response)).as(problem).startsWith("{\"kind\":\"Status\"").contains(problem);
        });
        byte[] garbage = new byte[512];
        new java.util.Random(20261203L).nextBytes(garbage);
        for (int i = 0; i < 200; i++) {
            byte[] body = i % 2 == 0 ? concat(MAGIC, Arrays.copyOf(garbage, i + 1)) : corrupt(valid, i);
            HttpResponse<byte[]> response = send("POST", path, "application/json", PROTOBUF, body);
            assertThat(response.statusCode()).as("%s: %s", i, text(response)).isIn(201, 400, 409, 422);
        }

        assertThat(send("POST", path, PROTOBUF, valid).statusCode()).isIn(201, 409);
    }

    private static byte[] corrupt(byte[] valid, int seed) {
        byte[] copy = valid.clone();
        copy[MAGIC.length + seed % (copy.length - MAGIC.length)] ^= (byte) (seed * 31);
        return copy;
    }

    private static byte[] envelope(String apiVersion, String kind, Message object) {
        Runtime.Unknown unknown = Runtime.Unknown.newBuilder().setTypeMeta(Runtime.TypeMeta.newBuilder()
                .setApiVersion(apiVersion).setKind(kind)).setRaw(object.toByteString()).build();
        return concat(MAGIC, unknown.toByteArray());
    }

    private static Runtime.Unknown unwrap(byte[] body) {
        assertThat(Arrays.copyOf(body, MAGIC.length)).as(new String(body, StandardCharsets.UTF_8)).isEqualTo(MAGIC);
        try {
            return Runtime.Unknown.parseFrom(Arrays.copyOfRange(body, MAGIC.length, body.length));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    /** Sends a protobuf body and asks for protobuf answers. */
    private static HttpResponse<byte[]> send(String method, String path, String contentType, byte[] body) {
        return send(method, path, PROTOBUF, contentType, body);
    }

    private static HttpResponse<byte[]> send(String method, String path, String accept, String contentType,
            byte[] body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(fixture.server.url() + path))
                .header("Authorization", "Bearer " + fixture.server.adminToken())
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        if (accept != null) {
            request.header("Accept", accept);
        }
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        try {
            return fixture.http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
