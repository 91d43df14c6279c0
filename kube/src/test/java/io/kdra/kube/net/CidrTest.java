package io.kdra.kube.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CidrTest {

    @ParameterizedTest
    @CsvSource({
        "10.9.8.7/24, 10.9.8.7/24",
        "2001:db8::1/64, 2001:db8::1/64",
        "2001:DB8:0:0:0:0:0:1/64, 2001:db8::1/64",
        "010.009.008.007/24, 10.9.8.7/24",
        "10.9.8.7/024, 10.9.8.7/24",
        "::ffff:1.2.3.4/120, 1.2.3.4/24",
        "::ffff:1.2.3.4/16, 1.2.3.4/16",
        "1:0:0:2:0:0:0:3/128, 1:0:0:2::3/128",
        "::/0, ::/0"
    })
    void canonicalInterfaceAddressesAsKubernetesSpellsThem(String text, String canonical) {
        assertThat(Cidr.canonicalInterfaceAddress(text)).contains(canonical);
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.9.8.7", "10.9.8.7/33", "2001:db8::1/129", "10.9.8/24", "fe80::1%eth0/64",
        "256.1.1.1/8", "10.9.8.7/", "10.9.8.7/-1", "10.9.8.7/2a", "host/24", "1::2::3/64"})
    void noInterfaceAddress(String text) {
        assertThat(Cidr.canonicalInterfaceAddress(text)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({
        "10.0.0.1/8, 10.0.0.1/8",
        "2001:db8::/32, 2001:db8::/32"
    })
    void parsesPrefixesStrictly(String text, String printed) {
        assertThat(Cidr.parse(text)).hasToString(printed);
        assertThatThrownBy(() -> Cidr.parse("010.0.0.1/8"))
                .hasMessage("netip.ParsePrefix(\"010.0.0.1/8\"): ParseAddr(\"010.0.0.1\"): IPv4 field has octet "
                        + "with leading zero");
    }
}
