package io.kdra.allocator.cel;

import static io.kdra.allocator.cel.CelSelectorCompilerTest.assertCheckError;
import static io.kdra.allocator.cel.CelSelectorCompilerTest.matches;
import static io.kdra.allocator.cel.CelSelectorCompilerTest.runtimeError;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Kubernetes' CIDR library, after {@code k8s.io/apiserver/pkg/cel/library/cidr_test.go} and Go's netip. */
class CidrLibraryTest {

    @ParameterizedTest
    @ValueSource(strings = {
        "cidr('192.168.0.0/24') == cidr('192.168.0.0/24') && cidr('192.168.0.0/24') != cidr('192.168.0.0/25')",
        "cidr('192.168.0.1/24') != cidr('192.168.0.0/24') && cidr('2001:DB8::/32') == cidr('2001:db8::/32')",
        "isCIDR('192.168.0.0/16') && isCIDR('::1/128') && isCIDR('192.168.0.1/16') && isCIDR('0.0.0.0/0')",
        "!isCIDR('192.168.0.0/33') && !isCIDR('::1/129') && !isCIDR('192.168.0.0') && !isCIDR('10.0.0.0/08')",
        "!isCIDR('::ffff:1.2.3.4/120') && !isCIDR('fe80::%eth0/64') && !isCIDR('10.0.0.0/-1') && !isCIDR('10.0.0.0/')",
        "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1')) && !cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))",
        "cidr('192.168.0.0/24').containsIP('192.168.0.1') && !cidr('192.168.0.0/24').containsIP('192.168.1.1')",
        "cidr('10.0.0.0/8').containsIP('10.255.255.255') && cidr('10.0.0.1/8').containsIP('10.9.9.9')",
        "cidr('0.0.0.0/0').containsIP('1.2.3.4') && !cidr('0.0.0.0/0').containsIP('::1') && "
                + "!cidr('::/0').containsIP('1.2.3.4')",
        "cidr('2001:db8::/32').containsIP(ip('2001:db8::1')) && !cidr('2001:db8::/32').containsIP('2001:dc8::1')",
        "cidr('2001:db8::/100').containsIP('2001:db8::fff:ffff') && "
                + "!cidr('2001:db8::/100').containsIP('2001:db8::1000:0')",
        "cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25')) && "
                + "!cidr('192.168.0.0/24').containsCIDR('192.168.0.0/23')",
        "cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24') && "
                + "!cidr('192.168.1.0/24').containsCIDR('192.168.2.0/24')",
        "cidr('192.168.0.0/16').containsCIDR('192.168.0.1/32') && cidr('10.0.0.0/8').containsCIDR(cidr('10.1.0.0/16'))",
        "cidr('2001:db8::/32').containsCIDR('2001:db8::/33') && !cidr('2001:db8::/32').containsCIDR('2001:db8::/31')",
        "!cidr('0.0.0.0/0').containsCIDR('::/0') && cidr('::/0').containsCIDR('2001:db8::/64')",
        "cidr('192.168.0.0/24').ip() == ip('192.168.0.0') && cidr('192.168.0.1/24').ip().family() == 4",
        "cidr('::1/128').ip() == ip('::1') && cidr('::1/128').ip().family() == 6",
        "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24') && "
                + "cidr('2001:db8:1::/32').masked() == cidr('2001:db8::/32')",
        "cidr('2001:db8::ffff/65').masked() == cidr('2001:db8::/65') && "
                + "cidr('1.2.3.4/0').masked() == cidr('0.0.0.0/0')",
        "cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked() && cidr('::1/128').masked() == cidr('::1/128')",
        "cidr('192.168.0.0/16').prefixLength() == 16 && cidr('::1/128').prefixLength() == 128",
        "cidr('10.0.0.0/8').containsIP(device.attributes['dra.example.com'].?address.orValue('10.1.2.3')) && "
                + "cidr('10.0.0.0/8').containsIP(dyn(ip('10.1.2.3'))) && "
                + "cidr('10.0.0.0/8').containsCIDR(dyn('10.1.0.0/16'))",
        "string(cidr('192.168.0.0/24')) == '192.168.0.0/24' && string(cidr('2001:DB8:0::1/64')) == '2001:db8::1/64'",
    })
    void evaluatesAsKubernetes(String expression) throws Exception {
        assertThat(matches(expression)).isTrue();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "192.168.0.0/         | bad bits after slash: \"\"",
        "2001:db8::/          | bad bits after slash: \"\"",
        "10.0.0.0/08          | bad bits after slash: \"08\"",
        "10.0.0.0/+8          | bad bits after slash: \"+8\"",
        "10.0.0.0/99999999999999999999 | bad bits after slash: \"99999999999999999999\"",
        "10.0.0.0/33          | prefix length out of range",
        "::/129               | prefix length out of range",
        "10.0.0.0             | no '/'",
        "fe80::%eth0/64       | IPv6 zones cannot be present in a prefix",
        "10.0.0/8             | ParseAddr(\"10.0.0\"): IPv4 address too short",
    })
    void reportsParseErrorsAsKubernetes(String text, String goError) {
        String expected = "network address parse error during conversion from string: network address parse error "
                + "during conversion from string: netip.ParsePrefix(\"" + text + "\"): " + goError;
        assertThat(runtimeError("cidr('" + text + "').prefixLength() == 8")).isEqualTo(expected);
        assertThat(runtimeError("cidr('0.0.0.0/0').containsCIDR('" + text + "')")).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "cidr('::ffff:1.2.3.4/120').prefixLength() == 120 | network address parse error during conversion from "
                + "string: IPv4-mapped IPv6 address \"::ffff:1.2.3.4/120\" is not allowed",
        "cidr('10.0.0.0/8').containsIP('10.0.0.256')      | no such overload",
        "cidr('10.0.0.0/8').containsIP('10.0.0.1%eth0')   | no such overload",
        "cidr('10.0.0.0/8').containsIP(ip('10.0.0.256'))  | IP Address \"10.0.0.256\" parse error during conversion "
                + "from string: ParseAddr(\"10.0.0.256\"): IPv4 field has value >255",
    })
    void reportsRuntimeErrorsAsKubernetes(String expression, String message) {
        assertThat(runtimeError(expression)).isEqualTo(message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "cidr(192168) == cidr('1.0.0.0/8')            | found no matching overload for 'cidr' applied to '(int)'",
        "isIP(cidr('192.168.0.0/24'))                 | found no matching overload for 'isIP' applied to '(net.CIDR)'",
        "cidr('1.0.0.0/8') == ip('1.0.0.0')           | found no matching overload for '_==_' applied to "
                + "'(net.CIDR, net.IP)'",
        "cidr('1.0.0.0/8').containsIP(1)              | found no matching overload for 'containsIP'",
    })
    void rejectsAtCompileTime(String expression, String message) {
        assertCheckError(expression, message);
    }
}
