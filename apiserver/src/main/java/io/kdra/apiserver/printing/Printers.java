package io.kdra.apiserver.printing;

import io.kdra.apiserver.api.BuiltinResources;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * The columns {@code kubectl get} shows for each kind, as kube-apiserver's table printers compute them: pods (ready,
 * status, restarts), nodes (status, roles, version), namespaces (status), events, config maps, secrets, services,
 * service accounts, replica and daemon sets, leases, ResourceClaims (state) and ResourceSlices (node, driver, pool). Every
 * other kind has name and age.
 */
public final class Printers {

    private static final String NAME_DESCRIPTION = "Name must be unique within a namespace.";
    private static final String AGE_DESCRIPTION = "CreationTimestamp is a timestamp representing the server time when "
            + "this object was created.";
    private static final String NONE = "<none>";
    private static final String UNKNOWN = "<unknown>";
    private static final String NODE_ROLE_PREFIX = "node-role.kubernetes.io/";
    private static final String NODE_ROLE_LABEL = "kubernetes.io/role";

    private Printers() {}

    /** @return the columns of the kind, in order; cells are computed from objects in the storage version */
    public static List<Column> forKind(ResourceType type) {
        if (!type.ownsStorage()) {
            // the cells read stored objects, which are the owner's: events.k8s.io Events print as core Events do
            return forKind(type.storageOwner());
        }
        String kind = type.kind();
        if (type.group().isEmpty()) {
            switch (kind) {
                case "Pod":
                    return pods();
                case "Node":
                    return nodes();
                case "Namespace":
                    return List.of(name(), text("Status", "The status of the namespace",
                            object -> Json.text(object, "status", "phase")), age());
                case "ConfigMap":
                    return List.of(name(), new Column("Data", "integer", "", 0, "Data contains the configuration data.",
                            (object, now) -> size(object.get("data")) + size(object.get("binaryData"))), age());
                case "Secret":
                    return List.of(name(), text("Type", "The type of secret", o -> Json.text(o, "type")),
                            new Column("Data", "integer", "", 0, "Data contains the secret data.",
                                    (object, now) -> size(object.get("data"))), age());
                case "Service":
                    return services();
                case "ServiceAccount":
                    return List.of(name(), new Column("Secrets", "string", "", 0, "Secrets of the service account.",
                            (object, now) -> Integer.toString(object.path("secrets").size())), age());
                case "Event":
                    return events();
                default:
                    return List.of(name(), age());
            }
        }
        if (type.group().equals("apps") && kind.equals("ReplicaSet")) {
            return List.of(name(), integer("Desired", "Number of desired pods.", "spec", "replicas"),
                    integer("Current", "Replicas is the most recently observed number of replicas.", "status",
                            "replicas"),
                    integer("Ready", "The number of ready replicas.", "status", "readyReplicas"), age(),
                    wide("Containers", "Names of each container in the template.", o -> containers(o, "name")),
                    wide("Images", "Images referenced by each container in the template.", o -> containers(o, "image")),
                    wide("Selector", "Label query over pods.", Printers::selector));
        }
        if (type.group().equals("apps") && kind.equals("DaemonSet")) {
            return List.of(name(),
                    integer("Desired", "The number of nodes that should run the daemon pod.", "status",
                            "desiredNumberScheduled"),
                    integer("Current", "The number of nodes running at least one daemon pod.", "status",
                            "currentNumberScheduled"),
                    integer("Ready", "The number of nodes with a ready daemon pod.", "status", "numberReady"),
                    integer("Up-to-date", "The number of nodes running the updated daemon pod.", "status",
                            "updatedNumberScheduled"),
                    integer("Available", "The number of nodes with an available daemon pod.", "status",
                            "numberAvailable"),
                    text("Node Selector", "The pods' node selector.", Printers::nodeSelector), age(),
                    wide("Containers", "Names of each container in the template.", o -> containers(o, "name")),
                    wide("Images", "Images referenced by each container in the template.", o -> containers(o, "image")),
                    wide("Selector", "Label query over pods.", Printers::selector));
        }
        if (type.group().equals("apps") && kind.equals("Deployment")) {
            return List.of(name(), text("Ready", "Number of the pod with ready state", o -> Json.at(o, "status",
                            "readyReplicas").asLong(0) + "/" + Json.at(o, "spec", "replicas").asLong(0)),
                    integer("Up-to-date", "Total number of non-terminated pods targeted by this deployment that have "
                            + "the desired template spec.", "status", "updatedReplicas"),
                    integer("Available", "Total number of available pods (ready for at least minReadySeconds) "
                            + "targeted by this deployment.", "status", "availableReplicas"), age(),
                    wide("Containers", "Names of each container in the template.", o -> containers(o, "name")),
                    wide("Images", "Images referenced by each container in the template.", o -> containers(o, "image")),
                    wide("Selector", "Label selector for pods. Existing ReplicaSets whose pods are selected by this "
                            + "will be the ones affected by this deployment.", Printers::selector));
        }
        if (type.group().equals("batch") && kind.equals("Job")) {
            return List.of(name(), text("Status", "Status of the job.", Printers::jobStatus),
                    text("Completions", "The completion status of the job.", Printers::jobCompletions),
                    new Column("Duration", "string", "", 0, "Time required to complete the job.",
                            Printers::jobDuration), age(),
                    wide("Containers", "Names of each container in the template.", o -> containers(o, "name")),
                    wide("Images", "Images referenced by each container in the template.", o -> containers(o, "image")),
                    wide("Selector", "Label query over pods.", Printers::selector));
        }
        if (type.group().equals("coordination.k8s.io") && kind.equals("Lease")) {
            return List.of(name(), text("Holder", "The holder of the lease.",
                    o -> Json.text(o, "spec", "holderIdentity")), age());
        }
        if (type.group().equals(BuiltinResources.RESOURCE_GROUP)) {
            switch (kind) {
                case "ResourceClaim":
                    return List.of(name(), text("State", "A summary of the claim's state", Printers::claimState),
                            age());
                case "ResourceSlice":
                    return List.of(name(),
                            text("Node", "The node providing the resources", o -> Json.text(o, "spec", "nodeName")),
                            text("Driver", "The driver providing the resources", o -> Json.text(o, "spec", "driver")),
                            text("Pool", "The pool the slice belongs to", o -> Json.text(o, "spec", "pool", "name")),
                            age());
                default:
                    return List.of(name(), age());
            }
        }
        return List.of(name(), age());
    }

    /** The first of kubectl's job states whose condition is true; a job with none is running. */
    private static String jobStatus(JsonNode job) {
        if (hasTrueCondition(job, "Complete")) {
            return "Complete";
        }
        if (hasTrueCondition(job, "Failed")) {
            return "Failed";
        }
        if (!Json.isEmpty(Json.at(job, "metadata", "deletionTimestamp"))) {
            return "Terminating";
        }
        for (String state : List.of("Suspended", "FailureTarget", "SuccessCriteriaMet")) {
            if (hasTrueCondition(job, state)) {
                return state;
            }
        }
        return "Running";
    }

    private static boolean hasTrueCondition(JsonNode object, String type) {
        for (JsonNode condition : Json.at(object, "status", "conditions")) {
            if (type.equals(Json.text(condition, "type")) && "True".equals(Json.text(condition, "status"))) {
                return true;
            }
        }
        return false;
    }

    /** {@code succeeded/completions}, or {@code succeeded/1 of parallelism} for a work queue. */
    private static String jobCompletions(JsonNode job) {
        long succeeded = Json.at(job, "status", "succeeded").asLong(0);
        JsonNode completions = Json.at(job, "spec", "completions");
        if (completions.isNumber()) {
            return succeeded + "/" + completions.asLong();
        }
        long parallelism = Json.at(job, "spec", "parallelism").asLong(0);
        return parallelism > 1 ? succeeded + "/1 of " + parallelism : succeeded + "/1";
    }

    /** From the start to the completion, or to now while running; empty before the start. */
    private static String jobDuration(JsonNode job, Instant now) {
        String start = Json.text(job, "status", "startTime");
        if (start == null || start.isEmpty()) {
            return "";
        }
        String completion = Json.text(job, "status", "completionTime");
        try {
            return since(start, completion == null || completion.isEmpty() ? now : Instant.parse(completion));
        } catch (DateTimeParseException e) {
            return UNKNOWN;
        }
    }

    private static List<Column> pods() {
        return List.of(name(),
                text("Ready", "The aggregate readiness state of this pod for accepting traffic.", Printers::podReady),
                text("Status", "The aggregate status of the containers in this pod.", Printers::podStatus),
                new Column("Restarts", "string", "", 0, "The number of times the containers in this pod have been "
                        + "restarted and when the last container in this pod has restarted.", Printers::podRestarts),
                age(),
                wide("IP", "IP address allocated to the pod.", o -> orNone(Json.text(o, "status", "podIP"))),
                wide("Node", "The node the pod is bound to.", o -> orNone(Json.text(o, "spec", "nodeName"))),
                wide("Nominated Node", "The node the scheduler nominated for the pod.",
                        o -> orNone(Json.text(o, "status", "nominatedNodeName"))),
                wide("Readiness Gates", "The readiness gates of the pod.", Printers::readinessGates));
    }

    private static List<Column> nodes() {
        return List.of(name(),
                text("Status", "The status of the node", Printers::nodeStatus),
                text("Roles", "The roles of the node", Printers::nodeRoles),
                age(),
                text("Version", "Kubelet Version reported by the node.",
                        o -> Json.text(o, "status", "nodeInfo", "kubeletVersion")),
                wide("Internal-IP", "The node's internal address.", o -> address(o, "InternalIP")),
                wide("External-IP", "The node's external address.", o -> address(o, "ExternalIP")),
                wide("OS-Image", "OS Image reported by the node.", o -> orUnknown(Json.text(o, "status", "nodeInfo",
                        "osImage"))),
                wide("Kernel-Version", "Kernel Version reported by the node.", o -> orUnknown(Json.text(o, "status",
                        "nodeInfo", "kernelVersion"))),
                wide("Container-Runtime", "ContainerRuntime Version reported by the node.",
                        o -> orUnknown(Json.text(o, "status", "nodeInfo", "containerRuntimeVersion"))));
    }

    private static List<Column> events() {
        return List.of(
                new Column("Last Seen", "string", "", 0,
                        "The time at which the most recent occurrence of this event was recorded.",
                        Printers::eventLastSeen),
                text("Type", "Type of this event (Normal, Warning).", o -> Json.text(o, "type")),
                text("Reason", "A short, machine understandable reason for the event.", o -> Json.text(o, "reason")),
                text("Object", "The object that this event is about.", Printers::eventObject),
                wide("Subobject", "The part of the object the event is about.",
                        o -> Json.text(o, "involvedObject", "fieldPath")),
                wide("Source", "The component reporting this event.", Printers::eventSource),
                text("Message", "A human-readable description of the event.",
                        o -> orEmpty(Json.text(o, "message")).strip()),
                new Column("First Seen", "string", "", 1, "The time at which the event was first recorded.",
                        Printers::eventFirstSeen),
                new Column("Count", "string", "", 1, "The number of times this event has occurred.",
                        (event, now) -> eventCount(event)),
                wide("Name", NAME_DESCRIPTION, o -> Json.text(o, "metadata", "name")));
    }

    private static String eventFirstSeen(JsonNode event, Instant now) {
        String first = Json.text(event, "firstTimestamp");
        return since(first == null || first.isEmpty() ? Json.text(event, "eventTime") : first, now);
    }

    private static String eventLastSeen(JsonNode event, Instant now) {
        String seriesLast = Json.text(event, "series", "lastObservedTime");
        if (seriesLast != null) {
            return since(seriesLast, now);
        }
        String last = Json.text(event, "lastTimestamp");
        return last == null || last.isEmpty() ? eventFirstSeen(event, now) : since(last, now);
    }

    private static long eventCount(JsonNode event) {
        if (event.path("series").isObject()) {
            return event.path("series").path("count").asLong(0);
        }
        long count = event.path("count").asLong(0);
        return count == 0 ? 1 : count;
    }

    private static String eventObject(JsonNode event) {
        String kind = orEmpty(Json.text(event, "involvedObject", "kind")).toLowerCase(Locale.ROOT);
        String name = Json.text(event, "involvedObject", "name");
        return name == null || name.isEmpty() ? kind : kind + "/" + name;
    }

    private static String eventSource(JsonNode event) {
        String component = firstNonEmpty(Json.text(event, "source", "component"),
                Json.text(event, "reportingComponent"));
        String instance = firstNonEmpty(Json.text(event, "source", "host"), Json.text(event, "reportingInstance"));
        return instance.isEmpty() ? component : component + ", " + instance;
    }

    private static String containers(JsonNode object, String field) {
        List<String> values = new ArrayList<>();
        for (JsonNode container : object.path("spec").path("template").path("spec").path("containers")) {
            values.add(orEmpty(Json.text(container, field)));
        }
        return String.join(",", values);
    }

    /** The selector as kubectl prints label selectors: {@code a=b,c in (d,e)}, or {@code <none>}. */
    private static List<Column> services() {
        return List.of(name(), text("Type", "The type of service.", o -> Json.text(o, "spec", "type")),
                text("Cluster-IP", "The cluster IP of the service.", o -> {
                    JsonNode ips = Json.at(o, "spec", "clusterIPs");
                    return ips.isEmpty() ? NONE : ips.get(0).asString("");
                }),
                text("External-IP", "The external IP of the service.", Printers::serviceExternalIp),
                text("Port(s)", "The ports of the service.", o -> {
                    List<String> ports = new ArrayList<>();
                    for (JsonNode port : Json.at(o, "spec", "ports")) {
                        int nodePort = port.path("nodePort").asInt(0);
                        ports.add(port.path("port").asInt(0) + (nodePort > 0 ? ":" + nodePort : "") + "/"
                                + port.path("protocol").asString(""));
                    }
                    return ports.isEmpty() ? NONE : String.join(",", ports);
                }), age(),
                wide("Selector", "The selector of the service.", o -> {
                    List<String> pairs = keyEqualsValue(Json.stringMap(o, "spec", "selector"));
                    return pairs.isEmpty() ? NONE : String.join(",", pairs);
                }));
    }

    /** getServiceExternalIP: external IPs, a load balancer's ingress or pending, an external name. */
    private static String serviceExternalIp(JsonNode service) {
        List<String> externalIps = new ArrayList<>();
        Json.at(service, "spec", "externalIPs").forEach(ip -> externalIps.add(ip.asString("")));
        switch (orEmpty(Json.text(service, "spec", "type"))) {
            case "ClusterIP", "NodePort" -> {
                return externalIps.isEmpty() ? NONE : String.join(",", externalIps);
            }
            case "LoadBalancer" -> {
                List<String> ips = new ArrayList<>();
                for (JsonNode ingress : Json.at(service, "status", "loadBalancer", "ingress")) {
                    String ip = Json.text(ingress, "ip");
                    ips.add(ip != null && !ip.isEmpty() ? ip : orEmpty(Json.text(ingress, "hostname")));
                }
                ips.addAll(externalIps);
                return ips.isEmpty() ? "<pending>" : String.join(",", ips);
            }
            case "ExternalName" -> {
                return orEmpty(Json.text(service, "spec", "externalName"));
            }
            default -> {
                return UNKNOWN;
            }
        }
    }

    private static String selector(JsonNode object) {
        JsonNode selector = object.path("spec").path("selector");
        List<String> terms = keyEqualsValue(Json.stringMap(selector, "matchLabels"));
        for (JsonNode requirement : selector.path("matchExpressions")) {
            String key = orEmpty(Json.text(requirement, "key"));
            List<String> values = new ArrayList<>();
            requirement.path("values").forEach(value -> values.add(value.asString("")));
            switch (orEmpty(Json.text(requirement, "operator"))) {
                case "In" -> terms.add(key + " in (" + String.join(",", values) + ")");
                case "NotIn" -> terms.add(key + " notin (" + String.join(",", values) + ")");
                case "Exists" -> terms.add(key);
                case "DoesNotExist" -> terms.add("!" + key);
                default -> { }
            }
        }
        return terms.isEmpty() ? NONE : String.join(",", terms);
    }

    private static String nodeSelector(JsonNode daemonSet) {
        List<String> pairs = keyEqualsValue(Json.stringMap(daemonSet, "spec", "template", "spec", "nodeSelector"));
        return pairs.isEmpty() ? NONE : String.join(",", pairs);
    }

    /** @return {@code key=value} per entry, sorted by key */
    private static List<String> keyEqualsValue(Map<String, String> map) {
        List<String> pairs = new ArrayList<>();
        map.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(entry -> pairs.add(entry.getKey() + "=" + entry.getValue()));
        return pairs;
    }

    /** deleted, pending, allocated, reserved: the words kube-apiserver's ResourceClaim printer joins. */
    private static String claimState(JsonNode claim) {
        List<String> states = new ArrayList<>();
        boolean deleting = !Json.isEmpty(Json.at(claim, "metadata", "deletionTimestamp"));
        if (deleting) {
            states.add("deleted");
        }
        if (Json.isEmpty(Json.at(claim, "status", "allocation"))) {
            if (!deleting) {
                states.add("pending");
            }
        } else {
            states.add("allocated");
            if (claim.path("status").path("reservedFor").size() > 0) {
                states.add("reserved");
            }
        }
        return String.join(",", states);
    }

    private static String podReady(JsonNode pod) {
        int total = pod.path("spec").path("containers").size();
        int ready = 0;
        for (JsonNode status : pod.path("status").path("containerStatuses")) {
            if (status.path("ready").asBoolean(false)) {
                ready++;
            }
        }
        return ready + "/" + total;
    }

    /**
     * The restarts of the init containers while the pod initializes, then of its containers, with the time since the
     * last one ended ({@code 2 (5m ago)}) when the kubelet reported it.
     */
    private static String podRestarts(JsonNode pod, Instant now) {
        JsonNode status = pod.path("status");
        boolean initializing = false;
        for (JsonNode init : status.path("initContainerStatuses")) {
            JsonNode terminated = init.path("state").path("terminated");
            if (terminated.isMissingNode() || terminated.path("exitCode").asInt(0) != 0) {
                initializing = true;
                break;
            }
        }
        JsonNode counted = initializing && !podInitializedCondition(pod) ? status.path("initContainerStatuses")
                : status.path("containerStatuses");
        long restarts = 0;
        Instant lastRestart = null;
        for (JsonNode container : counted) {
            restarts += container.path("restartCount").asLong(0);
            String finishedAt = Json.text(container, "lastState", "terminated", "finishedAt");
            try {
                Instant finished = finishedAt == null || finishedAt.isEmpty() ? null : Instant.parse(finishedAt);
                if (finished != null && (lastRestart == null || finished.isAfter(lastRestart))) {
                    lastRestart = finished;
                }
            } catch (DateTimeParseException e) {
                // an unreadable time shows as no time, as a zero time does in kube-apiserver
            }
        }
        return restarts != 0 && lastRestart != null
                ? restarts + " (" + HumanDuration.of(Duration.between(lastRestart, now)) + " ago)"
                : Long.toString(restarts);
    }

    private static boolean podInitializedCondition(JsonNode pod) {
        for (JsonNode condition : pod.path("status").path("conditions")) {
            if ("Initialized".equals(Json.text(condition, "type")) && "True".equals(Json.text(condition, "status"))) {
                return true;
            }
        }
        return false;
    }

    /** The pod's phase, or the reason its init containers or containers are stuck, or Terminating. */
    private static String podStatus(JsonNode pod) {
        JsonNode status = pod.path("status");
        String reason = orEmpty(Json.text(status, "phase"));
        if (!orEmpty(Json.text(status, "reason")).isEmpty()) {
            reason = Json.text(status, "reason");
        }
        JsonNode initStatuses = status.path("initContainerStatuses");
        boolean initializing = false;
        int index = 0;
        for (JsonNode init : initStatuses) {
            JsonNode terminated = init.path("state").path("terminated");
            JsonNode waiting = init.path("state").path("waiting");
            if (!terminated.isMissingNode() && terminated.path("exitCode").asInt(0) == 0) {
                index++;
                continue;
            }
            initializing = true;
            if (!terminated.isMissingNode()) {
                reason = "Init:" + terminatedReason(terminated);
            } else if (!waiting.isMissingNode() && !orEmpty(Json.text(waiting, "reason")).isEmpty()
                    && !Json.text(waiting, "reason").equals("PodInitializing")) {
                reason = "Init:" + Json.text(waiting, "reason");
            } else {
                reason = "Init:" + index + "/" + pod.path("spec").path("initContainers").size();
            }
            break;
        }
        if (!initializing) {
            boolean running = false;
            List<JsonNode> statuses = new ArrayList<>();
            status.path("containerStatuses").forEach(statuses::add);
            for (int i = statuses.size() - 1; i >= 0; i--) {
                JsonNode state = statuses.get(i).path("state");
                String waitingReason = orEmpty(Json.text(state, "waiting", "reason"));
                if (!waitingReason.isEmpty()) {
                    reason = waitingReason;
                } else if (!state.path("terminated").isMissingNode()) {
                    reason = terminatedReason(state.path("terminated"));
                } else if (!state.path("running").isMissingNode() && statuses.get(i).path("ready").asBoolean(false)) {
                    running = true;
                }
            }
            if (reason.equals("Completed") && running) {
                reason = podReadyCondition(pod) ? "Running" : "NotReady";
            }
        }
        if (!Json.isEmpty(Json.at(pod, "metadata", "deletionTimestamp"))) {
            reason = "NodeLost".equals(Json.text(status, "reason")) ? "Unknown" : "Terminating";
        }
        return reason;
    }

    private static String terminatedReason(JsonNode terminated) {
        String reason = orEmpty(Json.text(terminated, "reason"));
        if (!reason.isEmpty()) {
            return reason;
        }
        int signal = terminated.path("signal").asInt(0);
        return signal != 0 ? "Signal:" + signal : "ExitCode:" + terminated.path("exitCode").asInt(0);
    }

    private static boolean podReadyCondition(JsonNode pod) {
        for (JsonNode condition : pod.path("status").path("conditions")) {
            if ("Ready".equals(Json.text(condition, "type"))) {
                return "True".equals(Json.text(condition, "status"));
            }
        }
        return false;
    }

    private static String readinessGates(JsonNode pod) {
        JsonNode gates = pod.path("spec").path("readinessGates");
        if (gates.isEmpty()) {
            return NONE;
        }
        int met = 0;
        for (JsonNode gate : gates) {
            for (JsonNode condition : pod.path("status").path("conditions")) {
                if (Json.text(gate, "conditionType") != null
                        && Json.text(gate, "conditionType").equals(Json.text(condition, "type"))
                        && "True".equals(Json.text(condition, "status"))) {
                    met++;
                }
            }
        }
        return met + "/" + gates.size();
    }

    private static String nodeStatus(JsonNode node) {
        String status = "Unknown";
        for (JsonNode condition : node.path("status").path("conditions")) {
            if ("Ready".equals(Json.text(condition, "type"))) {
                status = "True".equals(Json.text(condition, "status")) ? "Ready" : "NotReady";
            }
        }
        if (node.path("spec").path("unschedulable").asBoolean(false)) {
            status += ",SchedulingDisabled";
        }
        return status;
    }

    private static String nodeRoles(JsonNode node) {
        TreeSet<String> roles = new TreeSet<>();
        for (Map.Entry<String, String> label : Json.stringMap(node, "metadata", "labels").entrySet()) {
            if (label.getKey().startsWith(NODE_ROLE_PREFIX)
                    && label.getKey().length() > NODE_ROLE_PREFIX.length()) {
                roles.add(label.getKey().substring(NODE_ROLE_PREFIX.length()));
            } else if (label.getKey().equals(NODE_ROLE_LABEL) && !label.getValue().isEmpty()) {
                roles.add(label.getValue());
            }
        }
        return roles.isEmpty() ? NONE : String.join(",", roles);
    }

    private static String address(JsonNode node, String type) {
        for (JsonNode address : node.path("status").path("addresses")) {
            if (type.equals(Json.text(address, "type"))) {
                return orNone(Json.text(address, "address"));
            }
        }
        return NONE;
    }

    private static Column name() {
        return new Column("Name", "string", "name", 0, NAME_DESCRIPTION,
                (object, now) -> orEmpty(Json.text(object, "metadata", "name")));
    }

    private static Column age() {
        return new Column("Age", "string", "", 0, AGE_DESCRIPTION, (object, now) -> age(object, now));
    }

    private static String age(JsonNode object, Instant now) {
        return since(Json.text(object, "metadata", "creationTimestamp"), now);
    }

    private static String since(String timestamp, Instant now) {
        if (timestamp == null || timestamp.isEmpty()) {
            return UNKNOWN;
        }
        try {
            return HumanDuration.of(Duration.between(Instant.parse(timestamp), now));
        } catch (DateTimeParseException e) {
            return UNKNOWN;
        }
    }

    private static Column integer(String name, String description, String... path) {
        return new Column(name, "integer", "", 0, description, (object, now) -> Json.at(object, path).asLong(0));
    }

    private static String firstNonEmpty(String first, String second) {
        return first != null && !first.isEmpty() ? first : orEmpty(second);
    }

    private static Column text(String name, String description, Function<JsonNode, String> cell) {
        return new Column(name, "string", "", 0, description, (object, now) -> orEmpty(cell.apply(object)));
    }

    private static Column wide(String name, String description, Function<JsonNode, String> cell) {
        return new Column(name, "string", "", 1, description, (object, now) -> orEmpty(cell.apply(object)));
    }

    private static int size(JsonNode map) {
        return map == null || !map.isObject() ? 0 : map.size();
    }

    private static String orEmpty(String text) {
        return text == null ? "" : text;
    }

    private static String orNone(String text) {
        return text == null || text.isEmpty() ? NONE : text;
    }

    private static String orUnknown(String text) {
        return text == null || text.isEmpty() ? UNKNOWN : text;
    }
}
