package io.kdra.allocator.cel;

import io.kdra.kube.GoQuote;
import static io.kdra.allocator.cel.CelSelectorCompilerTest.assertCheckError;
import static io.kdra.allocator.cel.CelSelectorCompilerTest.matches;
import static io.kdra.allocator.cel.CelSelectorCompilerTest.runtimeError;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code <string>.format(<list>)} against cel-go's {@code ext/formatting_test.go} expectations. */
class StringFormatTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "'no substitution'.format([])                      | no substitution",
        "'str is %s and some more'.format(['filler'])      | str is filler and some more",
        "'%% and also %%'.format([])                       | % and also %",
        "'%%%s%%'.format(['text'])                         | %text%",
        "'%d %d, %s %s'.format([dyn(1), dyn(2), dyn('A'), dyn('B')]) | 1 2, A B",
        "'%s is %d'.format([device.driver, device.attributes['dra.example.com'].count]) | dra.example.com is 4",
        "'%.3f'.format([1.2345])                           | 1.234",
        "'%f'.format([2.71828])                            | 2.718280",
        "'%.1f'.format([1234567.25])                       | 1,234,567.2",
        "'%.2f'.format([-0.125])                           | -0.12",
        "'%f'.format(['NaN']) + '%f'.format(['Infinity']) + '%f'.format(['-Infinity']) | NaN∞-∞",
        "'%e'.format([2.71828])                            | 2.718280\u202f×\u202f10⁰⁰",
        "'%.6e'.format([1052.032911275])                   | 1.052033\u202f×\u202f10⁰³",
        "'%.2e'.format([0.00012])                          | 1.200000\u202f×\u202f10⁻⁰⁴",
        "'%.17e'.format([-2.5])                            | ~ -2.500000\u202f×\u202f10⁰⁰~",
        "'%e'.format([-0.0]) + ' ' + '%.1f'.format([-0.0]) | 0.000000\u202f×\u202f10⁰⁰ 0.0",
        "'this is 5 in binary: %b'.format([5])             | this is 5 in binary: 101",
        "'%b %b %b'.format([dyn(-5), dyn(uint(64)), dyn(true)]) | -101 1000000 1",
        "'%o %o %o'.format([dyn(11), dyn(-11), dyn(65535u)]) | 13 -13 177777",
        "'%x %X %x %X'.format([dyn(30), dyn(30), dyn(-30), dyn(6000u)]) | 1e 1E -1e 1770",
        "'%x'.format(['Hello world!'])                     | 48656c6c6f20776f726c6421",
        "'%X'.format([b'byte string'])                     | 6279746520737472696E67",
        "'%d'.format([uint(64)])                           | 64",
        "'%s %s'.format([true, false])                     | true false",
        "'%s'.format([2.71]) + ' ' + '%s'.format([0.000000002]) + ' ' + '%s'.format([1e6]) | 2.71 2e-09 1e+06",
        "'%s'.format([1e23]) + ' ' + '%s'.format([duration('100000000s')]) | 1e+23 100000000s",
        "'%s'.format([double('NaN')]) + '%s'.format([double('Infinity')]) | NaN+Inf",
        "'%s'.format([999999999999])                       | 999999999999",
        "'null: %s'.format([null])                         | null: null",
        "'some bytes: %s'.format([b'xyz'])                 | some bytes: xyz",
        "'type is %s'.format([type('test string')])        | type is string",
        "'%s'.format([timestamp('2023-02-03T23:31:20+00:00')]) | 2023-02-03T23:31:20Z",
        "'%s'.format([timestamp('2023-02-03T23:31:20.120Z')]) | 2023-02-03T23:31:20.12Z",
        "'%s %s'.format([duration('1h45m47s'), duration('2ns')]) | 6347s 0.000000002s",
        "'%s'.format([[2.71]])                             | [2.710000]",
        "'%s'.format([[double('NaN'), double('Infinity')]]) | [\"NaN\", \"+Inf\"]",
        "'%s'.format([['abc', 'q\"\\n']])                   | [\"abc\", \"q\\\"\\n\"]",
        "'%s'.format([[[9, 8], [7]]])                      | [[9, 8], [7]]",
        "'%s'.format([[timestamp('2023-02-03T23:31:20Z')]]) | [timestamp(\"2023-02-03T23:31:20Z\")]",
        "'%s'.format([{'key2': duration('2h'), 'key1': duration('1s')}]) | "
                + "{\"key1\":duration(\"1s\"), \"key2\":duration(\"7200s\")}",
        "'%s'.format([{1: 'value1', 2: 'value2'}])         | {1:\"value1\", 2:\"value2\"}",
        "'%s'.format([{true: b'x'}])                       | {true:b\"x\"}",
        "'%s'.format([device.attributes['dra.example.com'].cores]) | [3, 1, 2]",
    })
    void formatsAsCelGo(String call, String expected) throws Exception {
        String expression = call + " == " + GoQuote.quote(expected);
        assertThat(matches(expression)).as("%s gave %s", call, actual(call)).isTrue();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "'%a'.format([1])              | could not parse formatting clause: unrecognized formatting clause \"a\"",
        "'%E'.format([0.5])            | could not parse formatting clause: unrecognized formatting clause \"E\"",
        "'%é'.format([1])              | could not parse formatting clause: unrecognized formatting clause \"Ã\"",
        "'%d %d %d'.format([0, 1])     | index 2 out of range",
        "'filler %'.format([])         | index 0 out of range",
        "'filler %'.format([1])        | unexpected end of string",
        "'%.34'.format([5.0])          | could not parse formatting clause: error while parsing precision: could not "
                + "find end of precision specifier",
        "'%.f'.format([5.0])           | could not parse formatting clause: error while parsing precision: error while "
                + "converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax",
        "'%.99999999999999999999f'.format([5.0]) | could not parse formatting clause: error while parsing precision: "
                + "error while converting precision to integer: strconv.Atoi: parsing \"99999999999999999999\": value "
                + "out of range",
        "'%.10001f'.format([5.0])      | could not parse formatting clause: error while parsing precision: precision "
                + "10001 exceeds the limit of 10000",
        "'string is %b'.format(['abc']) | error during formatting: only integers and bools can be formatted as binary, "
                + "was given string",
        "'%d'.format([duration('30m2s')]) | error during formatting: decimal clause can only be used on integers, was "
                + "given google.protobuf.Duration",
        "'%d'.format([5.2])            | error during formatting: decimal clause can only be used on integers, was "
                + "given double",
        "'octal: %o'.format(['a string']) | error during formatting: octal clause can only be used on integers, was "
                + "given string",
        "'double is %x'.format([0.5])  | error during formatting: only integers, byte buffers, and strings can be "
                + "formatted as hex, was given double",
        "'null: %f'.format([null])     | error during formatting: fixed-point clause can only be used on doubles, was "
                + "given null_type",
        "'%f'.format([1])              | error during formatting: fixed-point clause can only be used on doubles, was "
                + "given int",
        "'%e'.format(['Inf'])          | error during formatting: scientific clause can only be used on doubles, was "
                + "given string",
        "'%s'.format([quantity('1Gi')]) | error during formatting: string clause can only be used on strings, bools, "
                + "bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given kubernetes.Quantity",
        "'%s'.format([[semver('1.0.0')]]) | error during formatting: no formatting function for kubernetes.Semver",
        "'%s'.format([{1.5: 1}])       | error during formatting: no formatting function for map key of type double",
    })
    void reportsCelGoErrors(String call, String message) {
        assertThat(runtimeError(call + " == ''")).isEqualTo(message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "'%s %d'.format(['a', 1]) == 'a 1' | expected type 'string' but found 'int'",
        "'%d'.format(1) == '1'             | found no matching overload for 'format' applied to 'string.(int)'",
        "1.format([1]) == '1'              | found no matching overload for 'format' applied to 'int.(list(int))'",
    })
    void rejectsAtCompileTimeAsKubernetesDoes(String expression, String message) {
        assertCheckError(expression, message);
    }

    /** The value of a string expression, read from the missing-key error it causes. */
    private static String actual(String stringExpression) {
        return runtimeError("{'': 0}[" + stringExpression + "] == 0").replaceFirst("^no such key: ", "");
    }
}
