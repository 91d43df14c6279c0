package io.kdra.kube.stream;

import java.util.ArrayList;
import java.util.List;

/**
 * The WebSocket subprotocols of exec streams that kdra serves ({@code k8s.io/apimachinery}'s remotecommand channel
 * protocols, newest first) and their negotiation, which the API server and the kubelet do alike.
 */
public final class ExecProtocols {

    /** The served subprotocols, in order of preference. */
    public static final List<String> SERVED = List.of("v5.channel.k8s.io", "v4.channel.k8s.io");

    private ExecProtocols() {}

    /** A request that cannot stream exec; its message is what the 400 answer says. */
    public static final class UnsupportedUpgradeException extends Exception {
        UnsupportedUpgradeException(String message) {
            super(message);
        }
    }

    /**
     * Picks the protocol of an exec request: the first the client offers that is served.
     *
     * @param upgrade the request's {@code Upgrade} header, or null
     * @param protocolHeaders the values of its {@code Sec-WebSocket-Protocol} headers, each a comma-separated list
     * @throws UnsupportedUpgradeException for a request that is no WebSocket upgrade (SPDY is not served) or offers no
     *     served protocol
     */
    public static String negotiate(String upgrade, List<String> protocolHeaders) throws UnsupportedUpgradeException {
        // An h2c offer (the JDK's HttpClient makes one on a cleartext connection) is about the transport, not a stream.
        boolean noStreamUpgrade = upgrade == null || upgrade.equalsIgnoreCase("h2c");
        if (noStreamUpgrade || !upgrade.equalsIgnoreCase("websocket")) {
            throw new UnsupportedUpgradeException(noStreamUpgrade ? "Upgrade request required"
                    : String.format("unable to upgrade connection: %s is not supported, use WebSocket with one of "
                            + "the subprotocols %s", upgrade, SERVED));
        }
        List<String> offered = new ArrayList<>();
        for (String header : protocolHeaders) {
            for (String protocol : header.split(",")) {
                offered.add(protocol.trim());
            }
        }
        for (String protocol : offered) {
            if (SERVED.contains(protocol)) {
                return protocol;
            }
        }
        throw new UnsupportedUpgradeException(String.format("requested protocol(s) are not supported: %s; supports %s",
                offered, SERVED));
    }
}
