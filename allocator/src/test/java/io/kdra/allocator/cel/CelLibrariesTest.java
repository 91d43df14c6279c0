package io.kdra.allocator.cel;

import static io.kdra.allocator.cel.CelSelectorCompilerTest.assertCheckError;
import static io.kdra.allocator.cel.CelSelectorCompilerTest.compileError;
import static io.kdra.allocator.cel.CelSelectorCompilerTest.matches;
import static io.kdra.allocator.cel.CelSelectorCompilerTest.runtimeError;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Every function of the environment; each expression must evaluate to true against the test GPU. */
class CelLibrariesTest {

    @ParameterizedTest
    @ValueSource(strings = {
        "quantity('12Mi') == quantity('12582912')",
        "isQuantity('20') && isQuantity('20M') && isQuantity('20Mi')",
        "!isQuantity('20Mo') && !isQuantity('10Mm') && !isQuantity('')",
        "quantity('200M') == quantity('0.2G') && quantity('0.2G') == quantity('200M')",
        "quantity('2M') == quantity('0.002G') && quantity('2000k') == quantity('2M')",
        "quantity('200M') != quantity('0.3G')",
        "quantity('50M').isLessThan(quantity('50Mi')) && !quantity('100M').isLessThan(quantity('50M'))",
        "quantity('50Mi').isGreaterThan(quantity('50M')) && !quantity('50M').isGreaterThan(quantity('100M'))",
        "quantity('200M').compareTo(quantity('0.2G')) == 0",
        "quantity('50M').compareTo(quantity('50Mi')) == -1 && quantity('50Mi').compareTo(quantity('50M')) == 1",
        "quantity('50k').add(quantity('20')) == quantity('50.02k')",
        "!quantity('50k').add(20).isLessThan(quantity('50020'))",
        "quantity('50k').sub(quantity('20')) == quantity('49.98k')",
        "quantity('50k').sub(20) == quantity('49980')",
        "quantity('50k').add(20).sub(quantity('100k')).asInteger() == -49980",
        "quantity('50k').add(20).sub(quantity('100k')).sub(-50000).asInteger() == 20",
        "quantity('50k').asInteger() == 50000",
        "!quantity('9999999999999999999999999999999999999G').isInteger() && quantity('50').isInteger()",
        "!quantity('1000m').isInteger()",
        "quantity('50.703k').asApproximateFloat() == 50703.0",
        "sign(quantity('-1m')) == -1 && sign(quantity('0')) == 0 && sign(quantity('5Gi')) == 1",
    })
    void quantityLibrary(String expression) throws Exception {
        assertThat(matches(expression)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "semver('1.0.0') == semver('1.0.0') && semver('1.0.0+build.1') == semver('1.0.0')",
        "isSemver('1.0.0') && !isSemver('hello') && !isSemver('v1.0') && isSemver('v1.0', true)",
        "!isSemver('1.0', false) && isSemver('01.01.01', true)",
        "semver('1.0', true) == semver('1.0.0') && semver('01.01.01', true) == semver('1.1.1')",
        "semver('v1.0.0', true).major() == 1",
        "semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3",
        "semver('1.2.3').compareTo(semver('1.2.3')) == 0 && semver('1.2.3').compareTo(semver('2.0.0')) == -1",
        "semver('1.2.3').compareTo(semver('0.1.2')) == 1",
        "semver('1.0.0-alpha').isLessThan(semver('1.0.0')) && semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-beta'))",
        "semver('1.0.0-beta.11').isGreaterThan(semver('1.0.0-beta.2'))",
        "semver('1.0.0-rc.1').isGreaterThan(semver('1.0.0-beta.11')) && !semver('1.0.0').isGreaterThan(semver('1.0.0'))",
    })
    void semverLibrary(String expression) throws Exception {
        assertThat(matches(expression)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "[1, 2, 3].isSorted() && ['a', 'b', 'b', 'c'].isSorted() && ![2.0, 1.0].isSorted()",
        "[1].isSorted() && [].isSorted()",
        "[1, 3].sum() == 4 && [1.0, 3.0].sum() == 4.0 && [1u, 2u].sum() == 3u && [].sum() == 0",
        "[duration('1m'), duration('1s')].sum() == duration('1m1s')",
        "[1, 3].min() == 1 && [1, 3].max() == 3 && [1].min() == 1 && ['b', 'a'].min() == 'a'",
        "[true, false].max() && [b'b', b'a'].min() == b'a' && [2.5, -1.0].min() == -1.0",
        "[timestamp('2020-01-01T00:00:00Z'), timestamp('2021-01-01T00:00:00Z')].max() "
                + "== timestamp('2021-01-01T00:00:00Z')",
        "[1, 2, 2, 3].indexOf(2) == 1 && ['a', 'b', 'b', 'c'].lastIndexOf('b') == 2",
        "[1.0].indexOf(1.1) == -1 && [].indexOf('string') == -1 && [1].lastIndexOf(5) == -1",
        "!device.attributes['dra.example.com'].cores.isSorted()",
        "device.attributes['dra.example.com'].cores.max() == 3 && device.attributes['dra.example.com'].cores.sum() == 6",
        "device.attributes['dra.example.com'].cores.indexOf(1) == 1",
    })
    void listLibrary(String expression) throws Exception {
        assertThat(matches(expression)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "'abc 123'.find('[0-9]+') == '123' && 'abc 123'.find('xyz') == ''",
        "'123 abc 456'.findAll('[0-9]+') == ['123', '456'] && '123 abc 456'.findAll('[0-9]+', 1) == ['123']",
        "'123 abc 456'.findAll('xyz') == [] && 'a1b2'.findAll('[0-9]', 0) == []",
        "'123 abc 456'.findAll('[0-9]*') == ['123', '', '', '', '', '456']",
        "'héllo wörld'.findAll('[^ ]+') == ['héllo', 'wörld']",
        "'abc'.matches('b') && !'abc'.matches('^b')",
        "device.attributes['dra.example.com'].model.matches('^A[0-9]+$')",
    })
    void regexFunctions(String expression) throws Exception {
        assertThat(matches(expression)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "'hello'.charAt(1) == 'e' && 'hello'.indexOf('l') == 2 && 'hello'.lastIndexOf('l') == 3",
        "'TacoCat'.lowerAscii() == 'tacocat' && 'TacoCat'.upperAscii() == 'TACOCAT'",
        "'hello hello'.replace('he', 'we') == 'wello wello' && 'a,b'.split(',') == ['a', 'b']",
        "'tacocat'.substring(4) == 'cat' && '  x '.trim() == 'x' && ['a', 'b'].join('-') == 'a-b'",
        "strings.quote('a\"b') == '\"a\\\\\"b\"'",
        "'abc'.startsWith('a') && 'abc'.endsWith('c') && 'abc'.contains('b') && size('abc') == 3",
        "sets.contains([1, 2, 3], [1, 2]) && sets.equivalent([1, 2], [2, 1, 1]) && sets.intersects([1], [1, 2])",
        "[1, 2, 3].all(x, x > 0) && [1, 2, 3].exists(x, x == 2) && [1, 2, 3].exists_one(x, x == 2)",
        "[1, 2, 3].map(x, x * 2) == [2, 4, 6] && [1, 2, 3].filter(x, x > 1) == [2, 3] && has(device.driver)",
        "{'a': 1}.all(k, v, v == 1) && [10, 20].exists(i, v, i == 1 && v == 20)",
        "cel.bind(x, 2, x * x == 4)",
        "optional.of(1).hasValue() && optional.none().orValue(2) == 2 && {'a': 1}[?'b'].orValue(0) == 0",
        "!device.attributes['dra.example.com'].?missing.hasValue()",
        "1 < 1.5 && dyn(1) == 1.0 && 2u > 1",
    })
    void baseEnvironment(String expression) throws Exception {
        assertThat(matches(expression)).isTrue();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "quantity('10Mo') == quantity('1')              | quantities must match the regular expression "
                + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        "quantity('10Mm') == quantity('1')              | unable to parse quantity's suffix",
        "quantity('99999999999999999999G').asInteger() == 1 | cannot convert value to integer",
        "quantity('1e2000000000').add(1) == quantity('1') | quantity arithmetic needs more than 10000 digits",
        "semver('200K') == semver('1.0.0')              | No Major.Minor.Patch elements found",
        "semver('1.0', false) == semver('1.0.0')        | No Major.Minor.Patch elements found",
        "semver('v1.0.0') == semver('1.0.0')            | Invalid character(s) found in major number \"v1\"",
        "[].min() == 1                                  | min called on empty list",
        "[9223372036854775807, 1].sum() == 0            | integer overflow",
        "'abc'.find(device.driver + '(') == ''          | Illegal regex: error parsing regexp: missing closing ): "
                + "`dra.example.com(`",
        "'abc'.matches(device.driver + '(')             | error parsing regexp: missing closing ): `dra.example.com(`",
        "1 / (device.attributes['dra.example.com'].count - 4) == 0 | division by zero",
        "device.attributes['dra.example.com'].count + 9223372036854775807 > 0 | integer overflow",
    })
    void reportsRuntimeErrorsAsKubernetesDoes(String expression, String message) {
        assertThat(runtimeError(expression)).isEqualTo(message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "quantity(1) == quantity('1')        | found no matching overload for 'quantity' applied to '(int)'",
        "quantity('1').sign() == 1           | found no matching overload for 'sign' applied to "
                + "'kubernetes.Quantity.()'",
        "['a'].sum() == 'a'                  | found no matching overload for 'sum' applied to 'list(string).()'",
        "[[1]].min() == [1]                  | found no matching overload for 'min' applied to 'list(list(int)).()'",
        "'abc'.reverse() == 'cba'            | undeclared reference to 'reverse'",
        "[1, 'a'].size() == 2                | expected type 'int' but found 'string'",
        "'abc'.matches('(')                  | invalid matches argument",
        "semver('1.0.0').isGreaterThan(quantity('1')) | found no matching overload for 'isGreaterThan'",
    })
    void reportsCompileErrors(String expression, String message) {
        assertCheckError(expression, message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "'abc'.find('(') == ''               | program instantiation failed: error parsing regexp: missing closing ): `(`",
        "'abc'.findAll('[') == []            | program instantiation failed: error parsing regexp: missing closing ]: `[`",
    })
    void rejectsInvalidLiteralFindPatternsWhenPlanning(String expression, String message) {
        assertThat(compileError(expression)).isEqualTo(message);
    }
}
