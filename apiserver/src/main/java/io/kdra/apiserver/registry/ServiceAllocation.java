package io.kdra.apiserver.registry;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.storage.Store;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What kube-apiserver's Service storage adds to a Service: a cluster IP from the service range 10.96.0.0/12 (the
 * first one, 10.96.0.1, as kubeadm reserves it for {@code kubernetes}, is skipped) unless the Service is headless
 * ({@code clusterIP: None}) or an ExternalName, node ports from 30000-32767 for NodePort and LoadBalancer Services,
 * and on an update the allocated values a body leaves out (patchAllocatedValues). Nothing routes to these addresses:
 * the cluster has no proxy; they make Services look as on a cluster to kubectl and manifests.
 */
final class ServiceAllocation {

    /** 10.96.0.0/12: 10.96.0.0 up to 10.111.255.255. */
    private static final long RANGE_START = (10L << 24) | (96L << 16);
    private static final long RANGE_SIZE = 1L << 20;
    private static final int NODE_PORT_MIN = 30000;
    private static final int NODE_PORT_MAX = 32767;
    /** Values handed out whose Service may not be stored yet, so that concurrent creates do not share one. */
    private static final int RECENT = 1024;

    private final Store store;
    private final Set<String> recentIps = new LinkedHashSet<>();
    private final Set<Integer> recentPorts = new LinkedHashSet<>();

    ServiceAllocation(Store store) {
        this.store = store;
    }

    /** Allocates what a new or updated Service lacks; a cluster IP the body asks for must be free. */
    synchronized void allocate(ObjectNode service, ObjectNode current) {
        ObjectNode spec = Json.ensureObject(service, "spec");
        String type = spec.path("type").asString("ClusterIP");
        String name = Json.text(service, "metadata", "name");
        String namespace = Json.text(service, "metadata", "namespace");
        if (current != null) {
            keepAllocated(spec, Json.ensureObject(current, "spec"), type);
        }
        if (!type.equals("ExternalName")) {
            String ip = spec.path("clusterIP").asString("");
            if (ip.isEmpty()) {
                ip = freeIp(usedIps(namespace, name));
                spec.put("clusterIP", ip);
            } else if (current == null && !ip.equals("None") && usedIps(namespace, name).contains(ip)) {
                throw ApiException.of(422, "Invalid", String.format("Service \"%s\" is invalid: spec.clusterIPs: "
                        + "Invalid value: [\"%s\"]: failed to allocate IP %s: provided IP is already allocated",
                        name, ip, ip), null);
            }
            if (!spec.has("clusterIPs")) {
                spec.putArray("clusterIPs").add(ip);
            }
        }
        if (type.equals("NodePort") || type.equals("LoadBalancer")) {
            Set<Integer> used = null;
            for (JsonNode port : spec.path("ports")) {
                if (port instanceof ObjectNode entry && entry.path("nodePort").asInt(0) == 0) {
                    if (used == null) {
                        used = usedPorts(namespace, name);
                    }
                    int nodePort = freePort(used);
                    used.add(nodePort);
                    entry.put("nodePort", nodePort);
                }
            }
        }
    }

    /** An update that leaves out the cluster IP or a port's node port keeps the current one. */
    private static void keepAllocated(ObjectNode spec, ObjectNode currentSpec, String type) {
        if (!type.equals("ExternalName") && spec.path("clusterIP").asString("").isEmpty()
                && !currentSpec.path("clusterIP").asString("").isEmpty()) {
            spec.set("clusterIP", currentSpec.get("clusterIP").deepCopy());
            if (currentSpec.has("clusterIPs")) {
                spec.set("clusterIPs", currentSpec.get("clusterIPs").deepCopy());
            }
        }
        Map<String, Integer> byName = new HashMap<>();
        for (JsonNode port : currentSpec.path("ports")) {
            byName.put(port.path("name").asString(""), port.path("nodePort").asInt(0));
        }
        Set<Integer> taken = new HashSet<>();
        for (JsonNode port : spec.path("ports")) {
            taken.add(port.path("nodePort").asInt(0));
        }
        for (JsonNode port : spec.path("ports")) {
            Integer old = byName.get(port.path("name").asString(""));
            if (port instanceof ObjectNode entry && entry.path("nodePort").asInt(0) == 0 && old != null && old != 0
                    && !taken.contains(old)) {
                entry.put("nodePort", old);
                taken.add(old);
            }
        }
    }

    private Set<String> usedIps(String namespace, String name) {
        Set<String> used = new HashSet<>(recentIps);
        for (ObjectNode other : store.list("/services", null).items()) {
            if (isOther(other, namespace, name)) {
                for (JsonNode ip : Json.at(other, "spec", "clusterIPs")) {
                    used.add(ip.asString(""));
                }
                used.add(Json.at(other, "spec", "clusterIP").asString(""));
            }
        }
        return used;
    }

    private Set<Integer> usedPorts(String namespace, String name) {
        Set<Integer> used = new HashSet<>(recentPorts);
        for (ObjectNode other : store.list("/services", null).items()) {
            if (isOther(other, namespace, name)) {
                for (JsonNode port : Json.at(other, "spec", "ports")) {
                    used.add(port.path("nodePort").asInt(0));
                }
            }
        }
        return used;
    }

    private static boolean isOther(ObjectNode service, String namespace, String name) {
        return !(String.valueOf(namespace).equals(Json.text(service, "metadata", "namespace"))
                && String.valueOf(name).equals(Json.text(service, "metadata", "name")));
    }

    private String freeIp(Set<String> used) {
        for (long offset = 2; offset < RANGE_SIZE - 1; offset++) {
            long address = RANGE_START + offset;
            String ip = (address >> 24) + "." + ((address >> 16) & 0xff) + "." + ((address >> 8) & 0xff) + "."
                    + (address & 0xff);
            if (!used.contains(ip)) {
                remember(recentIps, ip);
                return ip;
            }
        }
        throw ApiException.internal("failed to allocate a cluster IP: the range 10.96.0.0/12 is full");
    }

    private int freePort(Set<Integer> used) {
        for (int port = NODE_PORT_MIN; port <= NODE_PORT_MAX; port++) {
            if (!used.contains(port)) {
                remember(recentPorts, port);
                return port;
            }
        }
        throw ApiException.internal("failed to allocate a node port: the range 30000-32767 is full");
    }

    private static <T> void remember(Set<T> recent, T value) {
        recent.add(value);
        if (recent.size() > RECENT) {
            recent.remove(recent.iterator().next());
        }
    }
}
