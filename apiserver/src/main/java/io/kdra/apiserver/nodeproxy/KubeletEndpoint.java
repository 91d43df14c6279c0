package io.kdra.apiserver.nodeproxy;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.json.Json;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * Where a node's kubelet serves its API, read from the Node's status as kube-apiserver's NodeConnectionInfoGetter
 * reads it: the first address of a preferred type and {@code status.daemonEndpoints.kubeletEndpoint.Port}.
 */
record KubeletEndpoint(String node, String host, int port) {

    /**
     * kdra's {@code --kubelet-preferred-address-types}. kube-apiserver puts Hostname first by default; simulated
     * kubelets name their Node after no resolvable host, so the IP comes first.
     */
    static final List<String> PREFERRED_ADDRESS_TYPES =
            List.of("InternalIP", "ExternalIP", "InternalDNS", "ExternalDNS", "Hostname");

    /** The kubelet's port when the Node does not say, as kube-apiserver's {@code --kubelet-port}. */
    static final int DEFAULT_PORT = 10250;

    private static final Pattern IP_LITERAL = Pattern.compile("[0-9.]+|.*:.*");

    /**
     * @throws ApiException 503 when the Node has no usable address; kdra's API server reaches only kubelets on this
     *     machine, so an address off the loopback counts as none
     */
    static KubeletEndpoint of(String name, JsonNode node) {
        JsonNode addresses = Json.at(node, "status", "addresses");
        String host = null;
        for (String type : PREFERRED_ADDRESS_TYPES) {
            for (JsonNode address : addresses) {
                if (host == null && type.equals(address.path("type").asString(""))
                        && !address.path("address").asString("").isEmpty()) {
                    host = address.path("address").asString();
                }
            }
        }
        if (host == null) {
            List<String> known = new ArrayList<>();
            addresses.forEach(address -> known.add(Json.string(address)));
            throw unavailable(name, "no preferred addresses found; known addresses: " + known);
        }
        if (!isLoopback(host)) {
            throw unavailable(name, String.format("address %s is not on this machine's loopback, the only place "
                    + "kdra's API server reaches kubelets", host));
        }
        long port = Json.at(node, "status", "daemonEndpoints", "kubeletEndpoint", "Port").asLong(0);
        if (port < 0 || port > 65535) {
            throw unavailable(name, "invalid kubelet port " + port);
        }
        return new KubeletEndpoint(name, host, port == 0 ? DEFAULT_PORT : (int) port);
    }

    private static boolean isLoopback(String host) {
        if (host.equals("localhost")) {
            return true;
        }
        if (!IP_LITERAL.matcher(host).matches()) {
            return false;
        }
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** A 503 naming the node, for a kubelet that cannot be reached. */
    static ApiException unavailable(String node, String why) {
        return ApiException.of(503, "ServiceUnavailable",
                String.format("error dialing backend: node \"%s\": %s", node, why), null);
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
