package io.kdra.kube.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ExecProtocolsTest {

    @Test
    void theFirstServedProtocolTheClientOffersWins() throws Exception {
        assertThat(ExecProtocols.negotiate("websocket", List.of("base64.channel.k8s.io, v4.channel.k8s.io",
                "v5.channel.k8s.io"))).isEqualTo("v4.channel.k8s.io");
        assertThat(ExecProtocols.negotiate("WebSocket", List.of("v5.channel.k8s.io"))).isEqualTo("v5.channel.k8s.io");
    }

    @Test
    void aRequestThatIsNoWebSocketUpgradeOrOffersNothingServedIsRefused() {
        assertThatThrownBy(() -> ExecProtocols.negotiate(null, List.of()))
                .isInstanceOf(ExecProtocols.UnsupportedUpgradeException.class)
                .hasMessage("Upgrade request required");
        assertThatThrownBy(() -> ExecProtocols.negotiate("SPDY/3.1", List.of("v4.channel.k8s.io")))
                .hasMessageStartingWith("unable to upgrade connection: SPDY/3.1 is not supported");
        assertThatThrownBy(() -> ExecProtocols.negotiate("websocket", List.of("base64.channel.k8s.io")))
                .hasMessage("requested protocol(s) are not supported: [base64.channel.k8s.io]; supports "
                        + "[v5.channel.k8s.io, v4.channel.k8s.io]");
    }
}
