package io.kdra.kube.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The WebSocket subprotocols of {@code pods/portforward} that kdra serves: the kubelet's channel protocol (one data
 * and one error channel per port, each opened by the port number in two little-endian bytes), which fabric8 speaks,
 * and kube-apiserver's SPDY tunnel, in which kubectl 1.31+ carries SPDY/3.1 frames in binary messages.
 */
public final class PortForwardProtocols {

    /** The kubelet's channel protocol for port forwarding; {@code portforward.k8s.io} is its older, equal name. */
    public static final List<String> CHANNELS = List.of("v4.channel.k8s.io", "portforward.k8s.io");
    /** kubectl's SPDY-over-WebSocket tunnel (kube-apiserver's {@code PortForwardWebsockets}). */
    public static final String SPDY_TUNNEL = "SPDY/3.1+portforward.k8s.io";
    /** Everything the API server accepts, preferred first. */
    public static final List<String> SERVED = List.of(SPDY_TUNNEL, CHANNELS.get(0), CHANNELS.get(1));

    private PortForwardProtocols() {}

    /**
     * @param upgrade the request's {@code Upgrade} header, or null
     * @param protocolHeaders the values of its {@code Sec-WebSocket-Protocol} headers
     * @param served the subprotocols the server offers, preferred first
     * @return the first served subprotocol the client offers, or empty when the request is no WebSocket upgrade or
     *     offers none
     */
    public static Optional<String> negotiate(String upgrade, List<String> protocolHeaders, List<String> served) {
        if (upgrade == null || !upgrade.equalsIgnoreCase("websocket")) {
            return Optional.empty();
        }
        List<String> offered = new ArrayList<>();
        for (String header : protocolHeaders) {
            for (String protocol : header.split(",")) {
                offered.add(protocol.trim());
            }
        }
        return served.stream().filter(offered::contains).findFirst();
    }
}
