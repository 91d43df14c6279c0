package io.kdra.apiserver.printing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.api.BuiltinResources;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Cells of the server-side tables, from objects in the storage version. */
class PrintersTest {

    private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");

    @Test
    void eventsShowWhenWhatAndWho() {
        Map<String, Object> row = row("", "Event", """
                {"metadata":{"name":"e1","creationTimestamp":"2026-01-01T11:00:00Z"},"type":"Warning",
                 "reason":"FailedScheduling","message":" 0/1 nodes are available \\n",
                 "involvedObject":{"kind":"Pod","name":"p","fieldPath":"spec.containers{c}"},
                 "source":{"component":"default-scheduler"},"reportingInstance":"host-1",
                 "firstTimestamp":"2026-01-01T11:00:00Z","lastTimestamp":"2026-01-01T11:58:30Z","count":3}""");
        assertThat(row).containsExactly(Map.entry("Last Seen", "90s"), Map.entry("Type", "Warning"),
                Map.entry("Reason", "FailedScheduling"), Map.entry("Object", "pod/p"),
                Map.entry("Subobject", "spec.containers{c}"), Map.entry("Source", "default-scheduler, host-1"),
                Map.entry("Message", "0/1 nodes are available"), Map.entry("First Seen", "60m"),
                Map.entry("Count", 3L), Map.entry("Name", "e1"));

        Map<String, Object> series = row("", "Event", """
                {"metadata":{"name":"e2"},"eventTime":"2026-01-01T11:59:00.123456Z","reportingComponent":"kubelet",
                 "involvedObject":{"kind":"Node"},"series":{"count":7,"lastObservedTime":"2026-01-01T11:59:50.000000Z"}}""");
        assertThat(series).containsEntry("Last Seen", "10s").containsEntry("First Seen", "59s")
                .containsEntry("Object", "node").containsEntry("Source", "kubelet").containsEntry("Count", 7L);
    }

    @Test
    void podStatusFollowsInitContainersContainersAndDeletion() {
        String pod = """
                {"metadata":{"name":"p"%s},"spec":{"initContainers":[{"name":"i"},{"name":"j"}],
                 "containers":[{"name":"c"}]},"status":{"phase":"Pending","initContainerStatuses":[%s]}}""";
        assertThat(row("", "Pod", pod.formatted("", """
                {"state":{"terminated":{"exitCode":0}}},{"state":{"waiting":{"reason":"PodInitializing"}}}""")))
                .containsEntry("Status", "Init:1/2").containsEntry("Ready", "0/1");
        assertThat(row("", "Pod", pod.formatted("", "{\"state\":{\"terminated\":{\"exitCode\":2}}}")))
                .containsEntry("Status", "Init:ExitCode:2");
        assertThat(row("", "Pod", pod.formatted(",\"deletionTimestamp\":\"2026-01-01T11:00:00Z\"", "")))
                .containsEntry("Status", "Terminating");
    }

    @Test
    void nodesReplicaAndDaemonSets() {
        assertThat(row("", "Node", """
                {"metadata":{"name":"n","labels":{"node-role.kubernetes.io/worker":"","kubernetes.io/role":"gpu"}},
                 "spec":{"unschedulable":true},"status":{"conditions":[{"type":"Ready","status":"False"}],
                 "addresses":[{"type":"InternalIP","address":"10.0.0.1"}]}}"""))
                .containsEntry("Status", "NotReady,SchedulingDisabled").containsEntry("Roles", "gpu,worker")
                .containsEntry("Internal-IP", "10.0.0.1").containsEntry("External-IP", "<none>")
                .containsEntry("OS-Image", "<unknown>");
        assertThat(row("apps", "ReplicaSet", """
                {"metadata":{"name":"rs"},"spec":{"replicas":3,"selector":{"matchLabels":{"b":"2","a":"1"},
                  "matchExpressions":[{"key":"t","operator":"In","values":["x","y"]},{"key":"u","operator":"DoesNotExist"}]},
                  "template":{"spec":{"containers":[{"name":"c1","image":"i1"},{"name":"c2","image":"i2"}]}}},
                 "status":{"replicas":2}}"""))
                .containsEntry("Desired", 3L).containsEntry("Current", 2L).containsEntry("Ready", 0L)
                .containsEntry("Containers", "c1,c2").containsEntry("Images", "i1,i2")
                .containsEntry("Selector", "a=1,b=2,t in (x,y),!u");
        assertThat(row("apps", "DaemonSet", """
                {"metadata":{"name":"ds"},"spec":{"template":{"spec":{"nodeSelector":{"gpu":"true"}}}},
                 "status":{"desiredNumberScheduled":2,"numberReady":1}}"""))
                .containsEntry("Desired", 2L).containsEntry("Ready", 1L).containsEntry("Node Selector", "gpu=true")
                .containsEntry("Selector", "<none>");
    }

    @Test
    void claimStates() {
        String claim = "{\"metadata\":{\"name\":\"c\"%s},\"status\":%s}";
        String deleting = ",\"deletionTimestamp\":\"2026-01-01T11:00:00Z\"";
        String allocated = "{\"allocation\":{\"devices\":{\"results\":[]}}}";
        String reserved = "{\"allocation\":{\"devices\":{}},\"reservedFor\":[{\"resource\":\"pods\"}]}";
        assertThat(row(BuiltinResources.RESOURCE_GROUP, "ResourceClaim", claim.formatted("", "{}")))
                .containsEntry("State", "pending");
        assertThat(row(BuiltinResources.RESOURCE_GROUP, "ResourceClaim", claim.formatted("", allocated)))
                .containsEntry("State", "allocated");
        assertThat(row(BuiltinResources.RESOURCE_GROUP, "ResourceClaim", claim.formatted(deleting, reserved)))
                .containsEntry("State", "deleted,allocated,reserved");
        assertThat(row(BuiltinResources.RESOURCE_GROUP, "ResourceClaim", claim.formatted(deleting, "{}")))
                .containsEntry("State", "deleted").containsEntry("Age", "<unknown>");
    }

    @Test
    void deploymentsAndJobs() {
        assertThat(row("apps", "Deployment", """
                {"metadata":{"name":"web","creationTimestamp":"2026-01-01T11:00:00Z"},
                 "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
                  "template":{"spec":{"containers":[{"name":"c","image":"nginx"}]}}},
                 "status":{"readyReplicas":2,"updatedReplicas":3,"availableReplicas":1}}"""))
                .containsExactly(Map.entry("Name", "web"), Map.entry("Ready", "2/3"), Map.entry("Up-to-date", 3L),
                        Map.entry("Available", 1L), Map.entry("Age", "60m"), Map.entry("Containers", "c"),
                        Map.entry("Images", "nginx"), Map.entry("Selector", "app=web"));

        String job = """
                {"metadata":{"name":"j"},"spec":{%s},"status":{"succeeded":1,"startTime":"2026-01-01T11:59:00Z"%s}}""";
        assertThat(row("batch", "Job", job.formatted("\"completions\":3", "")))
                .containsEntry("Status", "Running").containsEntry("Completions", "1/3")
                .containsEntry("Duration", "60s");
        assertThat(row("batch", "Job", job.formatted("\"parallelism\":2", """
                ,"completionTime":"2026-01-01T11:59:30Z","conditions":[{"type":"Complete","status":"True"}]""")))
                .containsEntry("Status", "Complete").containsEntry("Completions", "1/1 of 2")
                .containsEntry("Duration", "30s");
        assertThat(row("batch", "Job", job.formatted("", """
                ,"conditions":[{"type":"Suspended","status":"True"},{"type":"Failed","status":"False"}]""")))
                .containsEntry("Status", "Suspended").containsEntry("Completions", "1/1");
    }

    private static Map<String, Object> row(String group, String kind, String json) {
        ResourceType type = BuiltinResources.all().stream()
                .filter(t -> t.group().equals(group) && t.kind().equals(kind)).findFirst().orElseThrow();
        JsonNode object = Json.parse(json.getBytes(StandardCharsets.UTF_8));
        Map<String, Object> cells = new LinkedHashMap<>();
        List<Column> columns = Printers.forKind(type);
        for (Column column : columns) {
            cells.put(column.name(), column.cell().apply(object, NOW));
        }
        return cells;
    }
}
