package io.kdra.apiserver.registry;

import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.kube.FeatureGates;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The defaults kube-apiserver fills in on create, or when it decodes any write, for the kinds whose clients rely on
 * them.
 */
final class KindDefaults {

    private static final Set<String> GENERATION_KINDS = Set.of("/Pod", "apps/DaemonSet", "apps/ReplicaSet",
            "apps/Deployment", "batch/Job",
            "resource.k8s.io/DeviceClass", "resource.k8s.io/ResourceClaim", "resource.k8s.io/ResourceClaimTemplate",
            "resource.k8s.io/ResourceSlice", "resource.k8s.io/DeviceTaintRule",
            "admissionregistration.k8s.io/ValidatingAdmissionPolicy",
            "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding");

    /**
     * Kinds whose Go type holds its status by value: kube-apiserver always shows their {@code status}, as {@code {}}
     * when nothing is set, so a client may patch {@code /status/allocation} into a fresh claim.
     */
    private static final Set<String> STRUCT_STATUS_KINDS =
            Set.of("resource.k8s.io/ResourceClaim", "resource.k8s.io/DeviceTaintRule");

    static final String NAMESPACE_FINALIZER = "kubernetes";
    private static final String JOB_CONTROLLER_UID = "batch.kubernetes.io/controller-uid";
    private static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

    private KindDefaults() {}

    /** @return whether metadata.generation counts spec changes for the kind */
    static boolean tracksGeneration(ResourceType type) {
        return GENERATION_KINDS.contains(type.group() + "/" + type.kind());
    }

    static void applyOnCreate(ResourceType type, ObjectNode object, FeatureGates gates) {
        if (hasStructStatus(type)) {
            Json.ensureObject(object, "status");
        }
        if (isPod(type)) {
            ObjectNode status = Json.ensureObject(object, "status");
            status.put("phase", "Pending");
            status.put("qosClass", PodQos.of(object, gates));
        } else if (type.group().isEmpty() && type.kind().equals("Namespace")) {
            ObjectNode spec = Json.ensureObject(object, "spec");
            if (!spec.has("finalizers")) {
                spec.putArray("finalizers").add(NAMESPACE_FINALIZER);
            }
            Json.ensureObject(object, "status").put("phase", "Active");
        } else if (type.group().equals("batch") && type.kind().equals("Job")) {
            generateJobSelector(object);
        } else if (isService(type)) {
            Json.ensureObject(object, "status", "loadBalancer");
        }
    }

    /**
     * The Job strategy's generateSelector, unless {@code spec.manualSelector} is true: the pod template is labelled
     * with the job's name and UID (both label spellings), and the selector matches the UID, so that {@code kubectl
     * logs job/x} and {@code kubectl describe job/x} find this job's pods and no other's.
     */
    private static void generateJobSelector(ObjectNode job) {
        ObjectNode spec = Json.ensureObject(job, "spec");
        if (spec.path("manualSelector").asBoolean(false)) {
            return;
        }
        String name = Json.text(job, "metadata", "name");
        String uid = Json.text(job, "metadata", "uid");
        ObjectNode labels = Json.ensureObject(spec, "template", "metadata", "labels");
        for (String label : List.of("job-name", "batch.kubernetes.io/job-name")) {
            putIfAbsent(labels, label, name);
        }
        for (String label : List.of("controller-uid", JOB_CONTROLLER_UID)) {
            putIfAbsent(labels, label, uid);
        }
        putIfAbsent(Json.ensureObject(spec, "selector", "matchLabels"), JOB_CONTROLLER_UID, uid);
    }

    /**
     * What decoding a written object does in kube-apiserver, on create and on every update and patch: a pod's spec
     * gets its defaults ({@link #defaultPodSpec}), so that an update is compared with the stored pod as defaulted; a
     * Secret's {@code stringData} is merged into {@code data} (base64-encoded; it wins over a {@code data} entry of
     * the same key) and dropped, and its {@code type} defaults to {@code Opaque}.
     */
    static void applyOnWrite(ResourceType type, ObjectNode object) {
        if (isPod(type)) {
            defaultPodSpec(Json.ensureObject(object, "spec"));
        } else if (isService(type)) {
            defaultServiceSpec(Json.ensureObject(object, "spec"));
        } else if (type.group().isEmpty() && type.kind().equals("Secret")) {
            JsonNode stringData = object.remove("stringData");
            if (stringData != null && stringData.isObject() && !stringData.isEmpty()) {
                ObjectNode data = object.get("data") instanceof ObjectNode existing ? existing
                        : object.putObject("data");
                for (Map.Entry<String, JsonNode> entry : stringData.properties()) {
                    byte[] value = entry.getValue().asString("").getBytes(StandardCharsets.UTF_8);
                    data.put(entry.getKey(), Base64.getEncoder().encodeToString(value));
                }
            }
            if (Json.isEmpty(object.get("type"))) {
                object.put("type", "Opaque");
            }
        }
    }

    /**
     * What a status write keeps of the old status, as the pod status strategy does: a status without
     * {@code qosClass} keeps the pod's (a kubelet writes status without it).
     */
    static void applyOnStatusWrite(ResourceType type, ObjectNode next, ObjectNode current) {
        if (hasStructStatus(type)) {
            Json.ensureObject(next, "status");
        }
        if (type.group().equals("resource.k8s.io") && type.kind().equals("ResourceClaim")) {
            dropDeallocatedDeviceStatus(next, current);
        }
        if (isPod(type) && Json.isEmpty(Json.at(next, "status", "qosClass"))) {
            JsonNode qosClass = Json.at(current, "status", "qosClass");
            if (qosClass.isString()) {
                Json.ensureObject(next, "status").set("qosClass", qosClass);
            }
        }
    }

    /**
     * Labels a namespace with its own name ({@code kubernetes.io/metadata.name}), on every write as kube-apiserver
     * does, so that namespace selectors can select by name.
     */
    /**
     * A status write that deallocates devices also drops their {@code status.devices} entries, as the claim status
     * strategy does, so that the controller that deallocates need not know the drivers' entries.
     */
    private static void dropDeallocatedDeviceStatus(ObjectNode next, ObjectNode current) {
        Set<String> deallocated = new HashSet<>(allocatedDevices(current));
        deallocated.removeAll(allocatedDevices(next));
        if (deallocated.isEmpty() || !(Json.at(next, "status", "devices") instanceof ArrayNode devices)) {
            return;
        }
        for (int i = devices.size() - 1; i >= 0; i--) {
            if (deallocated.contains(deviceId(devices.get(i)))) {
                devices.remove(i);
            }
        }
        if (devices.isEmpty()) {
            ((ObjectNode) next.get("status")).remove("devices");
        }
    }

    private static Set<String> allocatedDevices(ObjectNode claim) {
        Set<String> ids = new HashSet<>();
        Json.at(claim, "status", "allocation", "devices", "results").forEach(result -> ids.add(deviceId(result)));
        return ids;
    }

    private static String deviceId(JsonNode entry) {
        return entry.path("driver").asString("") + "/" + entry.path("pool").asString("") + "/"
                + entry.path("device").asString("");
    }

    private static boolean hasStructStatus(ResourceType type) {
        return STRUCT_STATUS_KINDS.contains(type.group() + "/" + type.kind());
    }

    static void labelNamespace(ResourceType type, ObjectNode object) {
        if (type.group().isEmpty() && type.kind().equals("Namespace") && Meta.name(object) != null) {
            Json.ensureObject(object, "metadata", "labels").put(NAMESPACE_NAME_LABEL, Meta.name(object));
        }
    }

    /**
     * The pod spec defaults clients rely on: restart and DNS policy, scheduler, termination grace period, and each
     * container's resource requests defaulting to its limits.
     */
    private static void defaultPodSpec(ObjectNode spec) {
        putIfAbsent(spec, "restartPolicy", "Always");
        putIfAbsent(spec, "dnsPolicy", "ClusterFirst");
        putIfAbsent(spec, "schedulerName", "default-scheduler");
        if (!spec.hasNonNull("terminationGracePeriodSeconds")) {
            spec.put("terminationGracePeriodSeconds", 30);
        }
        for (String list : List.of("containers", "initContainers")) {
            for (JsonNode container : spec.path(list)) {
                if (container.path("resources").path("limits") instanceof ObjectNode limits && !limits.isEmpty()
                        && container.get("resources") instanceof ObjectNode resources) {
                    ObjectNode requests = Json.ensureObject(resources, "requests");
                    for (Map.Entry<String, JsonNode> limit : limits.properties()) {
                        if (!requests.has(limit.getKey())) {
                            requests.set(limit.getKey(), limit.getValue().deepCopy());
                        }
                    }
                }
            }
        }
    }

    /** SetDefaults_Service, and the IP family kube-apiserver's Service storage sets on a single-stack cluster. */
    private static void defaultServiceSpec(ObjectNode spec) {
        putIfAbsent(spec, "type", "ClusterIP");
        putIfAbsent(spec, "sessionAffinity", "None");
        String type = spec.path("type").asString("");
        for (JsonNode port : spec.path("ports")) {
            if (port instanceof ObjectNode entry) {
                putIfAbsent(entry, "protocol", "TCP");
                JsonNode target = entry.get("targetPort");
                if (target == null || target.isNull() || (target.isNumber() && target.asInt() == 0)
                        || (target.isString() && target.asString().isEmpty())) {
                    entry.set("targetPort", entry.path("port").deepCopy());
                }
            }
        }
        if (type.equals("ExternalName")) {
            return;
        }
        putIfAbsent(spec, "internalTrafficPolicy", "Cluster");
        if (type.equals("NodePort") || type.equals("LoadBalancer")) {
            putIfAbsent(spec, "externalTrafficPolicy", "Cluster");
        }
        if (type.equals("LoadBalancer") && !spec.has("allocateLoadBalancerNodePorts")) {
            spec.put("allocateLoadBalancerNodePorts", true);
        }
        putIfAbsent(spec, "ipFamilyPolicy", "SingleStack");
        if (Json.isEmpty(spec.get("ipFamilies"))) {
            spec.putArray("ipFamilies").add("IPv4");
        }
    }

    static boolean isService(ResourceType type) {
        return type.group().isEmpty() && type.kind().equals("Service");
    }

    private static boolean isPod(ResourceType type) {
        return type.group().isEmpty() && type.kind().equals("Pod");
    }

    private static void putIfAbsent(ObjectNode node, String field, String value) {
        if (!node.hasNonNull(field)) {
            node.put(field, value);
        }
    }
}
