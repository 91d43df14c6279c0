package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.resource.GoldenObjects;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Objects with one value replaced by a value of another JSON type, removed, or joined by an unknown field: the golden
 * DRA objects in every served version, and core objects rich in nested fields. Decoding, defaulting, conversion and
 * validation must answer with a Status naming the problem, never fail with a 500. Seeded, so a failure repeats.
 */
class MalformedInputTest extends ServerTestBase {

    private static final long SEED = 20261203L;
    private static final int MUTATIONS_PER_OBJECT = 40;
    private static final List<String[]> OBJECTS = List.of(
            new String[] {"deviceclass", "deviceclasses", "v1", "v1beta2", "v1beta1"},
            new String[] {"resourceclaim", "namespaces/default/resourceclaims", "v1", "v1beta2", "v1beta1"},
            new String[] {"resourceclaimtemplate", "namespaces/default/resourceclaimtemplates", "v1", "v1beta2",
                "v1beta1"},
            new String[] {"resourceslice-node", "resourceslices", "v1", "v1beta2", "v1beta1"},
            new String[] {"resourceslice-partitions", "resourceslices", "v1", "v1beta2", "v1beta1"},
            new String[] {"resourceslice-counters", "resourceslices", "v1", "v1beta2", "v1beta1"},
            new String[] {"devicetaintrule", "devicetaintrules", "v1", "v1beta2", "v1alpha3"});

    /** Core objects rich in nested fields, with their collection path and their status subresource, if any. */
    static final List<String[]> CORE_OBJECTS = List.of(
            new String[] {"/api/v1/namespaces/default/pods", "status", """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"a"},
                 "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u-1"}]},
                 "spec":{"containers":[{"name":"c","image":"i","command":["run"],"args":["--x"],
                   "env":[{"name":"A","value":"1"},{"name":"B","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
                   "ports":[{"containerPort":80,"protocol":"TCP"}],
                   "resources":{"limits":{"cpu":"1","memory":"1Gi"},"claims":[{"name":"gpu"}]},
                   "readinessProbe":{"httpGet":{"port":"http","path":"/"},"periodSeconds":5},
                   "volumeMounts":[{"name":"v","mountPath":"/v"}]}],
                  "volumes":[{"name":"v","emptyDir":{"sizeLimit":"1Gi"}}],
                  "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}],
                  "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
                    {"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}}},
                  "resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"t"}]},
                 "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}],
                  "containerStatuses":[{"name":"c","ready":true,"restartCount":1,"image":"i","imageID":"",
                   "state":{"running":{"startedAt":"2026-12-03T10:00:00Z"}}}]}}"""},
            new String[] {"/api/v1/nodes", "status", """
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},
                 "spec":{"taints":[{"key":"k","effect":"NoSchedule"}],"podCIDRs":["10.0.0.0/24"]},
                 "status":{"capacity":{"cpu":"4","pods":110},"allocatable":{"cpu":"4"},
                  "conditions":[{"type":"Ready","status":"True"}],"addresses":[{"type":"InternalIP","address":"1.2.3.4"}],
                  "nodeInfo":{"kubeletVersion":"v1.34.0","architecture":"amd64"}}}"""},
            new String[] {"/apis/apps/v1/namespaces/default/replicasets", "status", """
                {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs"},
                 "spec":{"replicas":2,"selector":{"matchLabels":{"app":"a"},
                   "matchExpressions":[{"key":"tier","operator":"In","values":["x"]}]},
                  "template":{"metadata":{"labels":{"app":"a","tier":"x"}},
                   "spec":{"containers":[{"name":"c","image":"i"}]}}},
                 "status":{"replicas":2,"readyReplicas":1}}"""},
            new String[] {"/apis/coordination.k8s.io/v1/namespaces/default/leases", "", """
                {"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},
                 "spec":{"holderIdentity":"h","leaseDurationSeconds":15,"renewTime":"2026-12-03T10:00:00.000000Z"}}"""},
            new String[] {"/api/v1/namespaces/default/events", "", """
                {"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},
                 "involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m",
                 "source":{"component":"c"},"count":2,"type":"Normal"}"""},
            new String[] {"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", "status", """
                {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"vap"},
                 "spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":["resource.k8s.io"],
                  "apiVersions":["*"],"operations":["CREATE"],"resources":["resourceslices"]}]},
                  "validations":[{"expression":"true","message":"m"}]}}"""});

    @Test
    void aValueOfTheWrongTypeInACoreObjectIsAClientError() {
        Random random = new Random(SEED);
        int count = 0;
        for (String[] object : CORE_OBJECTS) {
            for (int i = 0; i < MUTATIONS_PER_OBJECT; i++) {
                ObjectNode sent = (ObjectNode) Json.parse(object[2].getBytes(java.nio.charset.StandardCharsets.UTF_8));
                String name = "malformed-" + count++;
                ((ObjectNode) sent.get("metadata")).put("name", name);
                String changed = mutate(sent, random);
                List<HttpResponse<String>> responses = new ArrayList<>();
                responses.add(fixture.send("POST", object[0], "application/json", Json.string(sent)));
                if (!object[1].isEmpty()) {
                    responses.add(fixture.send("PUT", object[0] + "/" + name + "/" + object[1], "application/json",
                            Json.string(sent)));
                }
                for (HttpResponse<String> response : responses) {
                    assertThat(response.statusCode()).as("%s with %s: %s", object[0], changed, response.body())
                            .isIn(200, 201, 400, 404, 409, 422);
                    if (response.statusCode() >= 400) {
                        assertThat(response.body()).startsWith("{\"kind\":\"Status\"");
                    }
                }
            }
        }
    }

    @Test
    void aValueOfTheWrongTypeIsAClientErrorInEveryVersion() {
        Random random = new Random(SEED);
        int count = 0;
        for (String[] object : OBJECTS) {
            for (int i = 0; i < MUTATIONS_PER_OBJECT; i++) {
                String version = object[2 + random.nextInt(object.length - 2)];
                ObjectNode sent = GoldenObjects.load(object[0], version);
                sent.putObject("metadata").put("name", "malformed-" + count++);
                String changed = mutate(sent, random);
                for (String subresource : List.of("", "/status")) {
                    String path = "/apis/resource.k8s.io/" + version + "/" + object[1];
                    HttpResponse<String> response = subresource.isEmpty()
                            ? fixture.send("POST", path, "application/json", Json.string(sent))
                            : fixture.send("PUT", path + "/" + Json.text(sent, "metadata", "name") + subresource,
                                    "application/json", Json.string(sent));
                    assertThat(response.statusCode()).as("%s %s with %s: %s", object[0], version, changed,
                            response.body()).isIn(200, 201, 400, 404, 409, 422);
                    if (response.statusCode() >= 400) {
                        assertThat(response.body()).startsWith("{\"kind\":\"Status\"");
                    }
                }
            }
        }
    }

    @Test
    void aV1beta1DeviceWhoseBasicIsNoObjectIsNamed() {
        ObjectNode slice = GoldenObjects.load("resourceslice-node", "v1beta1");
        slice.putObject("metadata").put("name", "malformed-basic");
        ((ObjectNode) slice.at("/spec/devices/1")).putArray("basic").add("x");

        HttpResponse<String> response = fixture.send("POST", "/apis/resource.k8s.io/v1beta1/resourceslices",
                "application/json", Json.string(slice));

        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.body())
                .contains("ResourceSlice in version \\\"v1beta1\\\" cannot be handled as a ResourceSlice: json: "
                        + "cannot unmarshal array into Go struct field Device.spec.devices.basic of type "
                        + "v1beta1.BasicDevice");
    }

    /**
     * Replaces one randomly chosen value below the top level (spec, status, an event's fields ...) by a value of
     * another type, removes it, or adds an unknown field to it; returns what changed, for the failure message.
     */
    private static String mutate(ObjectNode object, Random random) {
        List<String> paths = new ArrayList<>();
        List<JsonNode> parents = new ArrayList<>();
        for (String top : object.propertyNames()) {
            if (!List.of("apiVersion", "kind", "metadata").contains(top)) {
                paths.add("/" + top);
                parents.add(object);
                collect(object.get(top), "/" + top, paths, parents);
            }
        }
        int chosen = random.nextInt(paths.size());
        String path = paths.get(chosen);
        JsonNode parent = parents.get(chosen);
        String last = path.substring(path.lastIndexOf('/') + 1);
        if (random.nextInt(9) == 0 && parent.get(last) instanceof ObjectNode target) {
            target.put("unknownField", 1);
            return path + " gained an unknown field";
        }
        if (random.nextInt(7) == 0) {
            if (parent instanceof ArrayNode array) {
                array.remove(Integer.parseInt(last));
            } else {
                ((ObjectNode) parent).remove(last);
            }
            return path + " removed";
        }
        JsonNode replacement = switch (random.nextInt(6)) {
            case 0 -> JsonNodeFactory.instance.stringNode("x");
            case 1 -> JsonNodeFactory.instance.numberNode(-7);
            case 2 -> JsonNodeFactory.instance.booleanNode(true);
            case 3 -> JsonNodeFactory.instance.arrayNode().add("x");
            case 4 -> JsonNodeFactory.instance.objectNode().put("x", 1);
            default -> JsonNodeFactory.instance.nullNode();
        };
        if (parent instanceof ArrayNode array) {
            array.set(Integer.parseInt(last), replacement);
        } else {
            ((ObjectNode) parent).set(last, replacement);
        }
        return path + " = " + replacement;
    }

    private static void collect(JsonNode node, String path, List<String> paths, List<JsonNode> parents) {
        if (node == null) {
            return;
        }
        if (node.isObject()) {
            for (var entry : node.properties()) {
                paths.add(path + "/" + entry.getKey());
                parents.add(node);
                collect(entry.getValue(), path + "/" + entry.getKey(), paths, parents);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                paths.add(path + "/" + i);
                parents.add(node);
                collect(node.get(i), path + "/" + i, paths, parents);
            }
        }
    }
}
