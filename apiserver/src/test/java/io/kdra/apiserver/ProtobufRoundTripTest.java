package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.protobuf.KubeProtobuf;
import io.kdra.apiserver.resource.GoldenObjects;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON to protobuf and back gives the JSON again, for the golden objects of the other tests (the DRA objects in v1,
 * the version with a protobuf form, and the rich core objects) and for random parts of them left out. The only
 * changes are Go's: a quantity written as a number comes back as its string, and an empty string as absent.
 */
class ProtobufRoundTripTest {

    private static final List<String> GOLDEN_V1 = List.of("deviceclass", "resourceclaim", "resourceclaimtemplate",
            "resourceslice-node", "resourceslice-partitions", "resourceslice-counters");

    private static final String RICH_OBJECTS = """
            [{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns","generation":3,
              "creationTimestamp":"2026-12-03T10:00:00Z","annotations":{"a":""},
              "managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"apps/v1",
                "time":"2026-12-03T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}]},
             "spec":{"replicas":0,"paused":false,"selector":{"matchLabels":{"app":"d"}},
              "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},
              "template":{"metadata":{"labels":{"app":"d"}},"spec":{"automountServiceAccountToken":false,
               "securityContext":{"runAsUser":0},
               "containers":[{"name":"c","image":"i","env":[{"name":"E","valueFrom":{"secretKeyRef":{"name":"s",
                 "key":"k","optional":true}}}],"envFrom":[{"configMapRef":{"name":"cm"}}],
                "livenessProbe":{"exec":{"command":["true"]},"initialDelaySeconds":5},
                "lifecycle":{"preStop":{"sleep":{"seconds":3}}}}],
               "volumes":[{"name":"p","projected":{"sources":[{"configMap":{"name":"cm","items":[{"key":"k","path":"p"}]}},
                 {"downwardAPI":{"items":[{"path":"n","fieldRef":{"fieldPath":"metadata.name"}}]}}]}},
                {"name":"pvc","persistentVolumeClaim":{"claimName":"c","readOnly":true}}]}}}},
             {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
              "spec":{"backoffLimit":0,"completions":3,"template":{"spec":{"restartPolicy":"Never",
               "containers":[{"name":"c","image":"i"}]}},
               "podFailurePolicy":{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget","status":"True"}]}]}},
              "status":{"startTime":"2026-12-03T10:00:00Z","active":1,"ready":0}},
             {"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"type":"Opaque","data":{"k":"aHVudGVyMg==","e":""}},
             {"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e"},"eventTime":"2026-12-03T10:00:00.123456Z",
              "reportingController":"c","reportingInstance":"i","action":"A","reason":"R","regarding":{"kind":"Pod","name":"p"},
              "series":{"count":2,"lastObservedTime":"2026-12-03T10:00:01.000000Z"}},
             {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"r"},
              "rules":[{"apiGroups":["resource.k8s.io"],"resources":["resourceclaims"],"verbs":["get","list"]}],
              "aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"x":"y"}}]}},
             {"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"pdb"},
              "spec":{"minAvailable":"50%","selector":{"matchExpressions":[{"key":"a","operator":"Exists"}]}}},
             {"apiVersion":"v1","kind":"Status","metadata":{},"status":"Failure","message":"m","reason":"Invalid",
              "details":{"name":"n","kind":"pods","causes":[{"reason":"FieldValueRequired","message":"x","field":"spec"}]},
              "code":422}]""";

    @Test
    void goldenObjectsSurviveTheRoundTrip() {
        for (ObjectNode object : goldenObjects()) {
            assertThat(roundTrip(object)).as(Json.string(object)).isEqualTo(asGoWritesIt(object));
        }
    }

    @Test
    void objectsWithRandomPartsLeftOutSurviveTheRoundTrip() {
        Random random = new Random(20261203L);
        for (int i = 0; i < 300; i++) {
            List<ObjectNode> objects = goldenObjects();
            ObjectNode object = objects.get(random.nextInt(objects.size()));
            List<ObjectNode> parents = new ArrayList<>();
            collectObjects(object, parents);
            ObjectNode parent = parents.get(random.nextInt(parents.size()));
            List<String> names = new ArrayList<>();
            parent.propertyNames().forEach(names::add);
            // an emptied map would come back absent, as Go omits it: keep one entry
            if (names.size() > 1 && parent != object) {
                parent.remove(names.get(random.nextInt(names.size())));
            }
            assertThat(roundTrip(object)).as(Json.string(object)).isEqualTo(asGoWritesIt(object));
        }
    }

    private static ObjectNode roundTrip(ObjectNode object) {
        return KubeProtobuf.decode(KubeProtobuf.encode(object));
    }

    private static List<ObjectNode> goldenObjects() {
        List<ObjectNode> objects = new ArrayList<>();
        GOLDEN_V1.forEach(name -> objects.add(GoldenObjects.load(name, "v1")));
        MalformedInputTest.CORE_OBJECTS.forEach(object -> objects.add((ObjectNode) parse(object[2])));
        parse(RICH_OBJECTS).forEach(object -> objects.add((ObjectNode) object));
        return objects;
    }

    private static void collectObjects(JsonNode node, List<ObjectNode> into) {
        if (node instanceof ObjectNode object) {
            into.add(object);
        }
        node.forEach(child -> collectObjects(child, into));
    }

    /** Go's changes: a quantity number becomes its string, an empty string in a struct is omitted. */
    private static ObjectNode asGoWritesIt(ObjectNode object) {
        ObjectNode expected = object.deepCopy();
        JsonNode capacity = expected.at("/status/capacity");
        if (capacity instanceof ObjectNode quantities) {
            for (Map.Entry<String, JsonNode> entry : quantities.properties()) {
                if (entry.getValue().isNumber()) {
                    quantities.put(entry.getKey(), entry.getValue().asString());
                }
            }
        }
        expected.findParents("imageID").forEach(parent -> ((ObjectNode) parent).remove("imageID"));
        return expected;
    }

    private static JsonNode parse(String json) {
        return Json.parse(json.getBytes(StandardCharsets.UTF_8));
    }
}
