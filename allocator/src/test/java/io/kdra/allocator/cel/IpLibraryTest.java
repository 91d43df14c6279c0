package io.kdra.allocator.cel;

import static io.kdra.allocator.cel.CelSelectorCompilerTest.assertCheckError;
import static io.kdra.allocator.cel.CelSelectorCompilerTest.matches;
import static io.kdra.allocator.cel.CelSelectorCompilerTest.runtimeError;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Kubernetes' IP library, after {@code k8s.io/apiserver/pkg/cel/library/ip_test.go} and Go's netip. */
class IpLibraryTest {

    @ParameterizedTest
    @ValueSource(strings = {
        "ip('192.168.0.1') == ip('192.168.0.1') && ip('192.168.0.1') != ip('192.168.0.2')",
        "ip('2001:db8::68') == ip('2001:DB8:0:0:0::68') && ip('::1') != ip('0.0.0.1')",
        "isIP('192.168.0.1') && isIP('2001:db8::68') && isIP('::') && isIP('1:2:3:4:5:6:7:8') && isIP('::1.2.3.4')",
        "!isIP('192.168.0.1.0') && !isIP('2001:db8:::68') && !isIP('') && !isIP('localhost') && !isIP('example.com')",
        "!isIP('010.0.0.1') && !isIP('::ffff:1.2.3.4') && !isIP('fe80::1%eth0') && !isIP('1:2:3:4:5:6:7:8:9')",
        "ip.isCanonical('127.0.0.1') && ip.isCanonical('2001:db8::68') && !ip.isCanonical('2001:DB8::68')",
        "!ip.isCanonical('2001:db8::0:0:0:abcd') && !ip.isCanonical('0:0::1')",
        "ip('192.168.0.1').family() == 4 && ip('2001:db8::68').family() == 6",
        "ip('0.0.0.0').isUnspecified() && !ip('127.0.0.1').isUnspecified() && ip('::').isUnspecified()",
        "!ip('::1').isUnspecified()",
        "ip('127.0.0.1').isLoopback() && ip('127.255.0.9').isLoopback() && !ip('1.2.3.4').isLoopback()",
        "ip('::1').isLoopback() && !ip('2001:db8::abcd').isLoopback()",
        "ip('224.0.0.1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast()",
        "ip('ff02::1').isLinkLocalMulticast() && ip('ff12::1').isLinkLocalMulticast()",
        "!ip('fd00::1').isLinkLocalMulticast() && !ip('ff05::1').isLinkLocalMulticast()",
        "ip('169.254.169.254').isLinkLocalUnicast() && !ip('192.168.0.1').isLinkLocalUnicast()",
        "ip('fe80::1').isLinkLocalUnicast() && ip('febf::1').isLinkLocalUnicast() && "
                + "!ip('fd80::1').isLinkLocalUnicast()",
        "ip('192.168.0.1').isGlobalUnicast() && ip('10.0.0.1').isGlobalUnicast() && ip('fd00::1').isGlobalUnicast()",
        "!ip('255.255.255.255').isGlobalUnicast() && !ip('0.0.0.0').isGlobalUnicast() && "
                + "!ip('224.0.0.5').isGlobalUnicast()",
        "ip('2001:db8::abcd').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast() && "
                + "!ip('fe80::1').isGlobalUnicast()",
        "string(ip('192.168.0.1')) == '192.168.0.1' && string(ip('2001:DB8:0:0:1:0:0:1')) == '2001:db8::1:0:0:1'",
        "string(ip('1:0:0:2:0:0:0:3')) == '1:0:0:2::3' && string(ip('1:0:2:3:4:5:6:7')) == '1:0:2:3:4:5:6:7'",
        "string(ip('::1.2.3.4')) == '::102:304' && string(ip('0::0')) == '::' && string(ip('1::')) == '1::'",
        "device.attributes['dra.example.com'].?address.orValue('10.1.2.3').matches('^[0-9.]+$') && "
                + "ip(device.attributes['dra.example.com'].?address.orValue('10.1.2.3')).family() == 4",
    })
    void evaluatesAsKubernetes(String expression) throws Exception {
        assertThat(matches(expression)).isTrue();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "ip('192.168.0.1.0')  | ParseAddr(\"192.168.0.1.0\"): IPv4 address too long",
        "ip('127.0.0.256')    | ParseAddr(\"127.0.0.256\"): IPv4 field has value >255",
        "ip('1.2.3')          | ParseAddr(\"1.2.3\"): IPv4 address too short",
        "ip('010.0.0.1')      | ParseAddr(\"010.0.0.1\"): IPv4 field has octet with leading zero",
        "ip('1..2.3')         | ParseAddr(\"1..2.3\"): IPv4 field must have at least one digit (at \".2.3\")",
        "ip('example.com')    | ParseAddr(\"example.com\"): unexpected character (at \"example.com\")",
        "ip('localhost')      | ParseAddr(\"localhost\"): unable to parse IP",
        "ip('')               | ParseAddr(\"\"): unable to parse IP",
        "ip('%eth0')          | ParseAddr(\"%eth0\"): missing IPv6 address",
        "ip('2001:db8:::68')  | ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit "
                + "(at \":68\")",
        "ip(':::1')           | ParseAddr(\":::1\"): each colon-separated field must have at least one digit (at "
                + "\":1\")",
        "ip('1::2::3')        | ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")",
        "ip('12345::1')       | ParseAddr(\"12345::1\"): each group must have 4 or less digits (at \"12345::1\")",
        "ip('::00001')        | ParseAddr(\"::00001\"): each group must have 4 or less digits (at \"00001\")",
        "ip('1:2:3:4:5:6:7')  | ParseAddr(\"1:2:3:4:5:6:7\"): address string too short",
        "ip('1:2:3:4:5:6:7:8:9') | ParseAddr(\"1:2:3:4:5:6:7:8:9\"): trailing garbage after address (at \"9\")",
        "ip('1:2:3:4::5:6:7:8') | ParseAddr(\"1:2:3:4::5:6:7:8\"): the :: must expand to at least one field of zeros",
        "ip('1:2:')           | ParseAddr(\"1:2:\"): colon must be followed by more characters (at \":\")",
        "ip('1:2x')           | ParseAddr(\"1:2x\"): unexpected character, want colon (at \"x\")",
        "ip('1:2:3.4.5.6')    | ParseAddr(\"1:2:3.4.5.6\"): embedded IPv4 address must replace the final 2 fields "
                + "of the address (at \"3.4.5.6\")",
        "ip('::1.2.3.256')    | ParseAddr(\"::1.2.3.256\"): IPv4 field has value >255",
        "ip('fe80::1%')       | ParseAddr(\"fe80::1%\"): zone must be a non-empty string",
    })
    void reportsParseErrorsAsKubernetes(String call, String goError) {
        String text = call.substring(4, call.length() - 2);
        assertThat(runtimeError(call + ".family() == 4")).isEqualTo(
                "IP Address \"" + text + "\" parse error during conversion from string: " + goError);
        assertThat(runtimeError("ip.isCanonical('" + text + "')")).isEqualTo(
                "IP Address \"" + text + "\" parse error during conversion from string: " + goError);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "ip('fe80::1%eth0') == ip('fe80::1')     | IP address \"fe80::1%eth0\" with zone value is not allowed",
        "ip('::ffff:1.2.3.4') == ip('1.2.3.4')   | IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed",
        "ip('::FFFF:0102:0304').family() == 6    | IPv4-mapped IPv6 address \"::FFFF:0102:0304\" is not allowed",
    })
    void rejectsZonesAndMappedAddresses(String expression, String message) {
        assertThat(runtimeError(expression)).isEqualTo(message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "isIP(1)                          | found no matching overload for 'isIP' applied to '(int)'",
        "ip('1.2.3.4').family('x') == 4   | found no matching overload for 'family'",
        "ip('1.2.3.4') == '1.2.3.4'       | found no matching overload for '_==_' applied to '(net.IP, string)'",
    })
    void rejectsAtCompileTime(String expression, String message) {
        assertCheckError(expression, message);
    }
}
