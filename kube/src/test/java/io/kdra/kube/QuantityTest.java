package io.kdra.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kdra.kube.Quantity.Format;
import java.math.BigDecimal;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Tables taken from the behaviour of k8s.io/apimachinery resource.Quantity (quantity_test.go, golden test). */
class QuantityTest {

    private static final String MAX = "9223372036854775807";

    /** Input, exact value, format: upstream's TestQuantityParse table. */
    static Stream<Arguments> parsedValues() {
        return Stream.of(
                row("0", "0", Format.DECIMAL_SI), row("0n", "0", Format.DECIMAL_SI),
                row("0u", "0", Format.DECIMAL_SI), row("0m", "0", Format.DECIMAL_SI),
                row("0Ki", "0", Format.BINARY_SI), row("0k", "0", Format.DECIMAL_SI),
                row("0Mi", "0", Format.BINARY_SI), row("0M", "0", Format.DECIMAL_SI),
                row("0Gi", "0", Format.BINARY_SI), row("0G", "0", Format.DECIMAL_SI),
                row("0Ti", "0", Format.BINARY_SI), row("0T", "0", Format.DECIMAL_SI),
                row("1", "1", Format.DECIMAL_SI),
                row("1Ki", "1024", Format.BINARY_SI), row("8Ki", "8192", Format.BINARY_SI),
                row("7Mi", "7340032", Format.BINARY_SI), row("6Gi", "6442450944", Format.BINARY_SI),
                row("5Ti", "5497558138880", Format.BINARY_SI), row("4Pi", "4503599627370496", Format.BINARY_SI),
                row("3Ei", "3458764513820540928", Format.BINARY_SI),
                row("10Ti", "10995116277760", Format.BINARY_SI), row("100Ti", "109951162777600", Format.BINARY_SI),
                row("5n", "5e-9", Format.DECIMAL_SI), row("4u", "4e-6", Format.DECIMAL_SI),
                row("3m", "0.003", Format.DECIMAL_SI), row("9", "9", Format.DECIMAL_SI),
                row("8k", "8000", Format.DECIMAL_SI), row("50k", "50000", Format.DECIMAL_SI),
                row("7M", "7e6", Format.DECIMAL_SI), row("6G", "6e9", Format.DECIMAL_SI),
                row("5T", "5e12", Format.DECIMAL_SI), row("40T", "4e13", Format.DECIMAL_SI),
                row("300T", "3e14", Format.DECIMAL_SI), row("2P", "2e15", Format.DECIMAL_SI),
                row("1E", "1e18", Format.DECIMAL_SI),
                row("1E-3", "0.001", Format.DECIMAL_EXPONENT), row("1e3", "1000", Format.DECIMAL_EXPONENT),
                row("1E6", "1e6", Format.DECIMAL_EXPONENT), row("1e9", "1e9", Format.DECIMAL_EXPONENT),
                row("1E12", "1e12", Format.DECIMAL_EXPONENT), row("1e15", "1e15", Format.DECIMAL_EXPONENT),
                row("1E18", "1e18", Format.DECIMAL_EXPONENT), row("1e14", "1e14", Format.DECIMAL_EXPONENT),
                row("1e13", "1e13", Format.DECIMAL_EXPONENT), row("100.035k", "100035", Format.DECIMAL_SI),
                row("0.001", "0.001", Format.DECIMAL_SI), row("0.0005k", "0.5", Format.DECIMAL_SI),
                row("0.005", "0.005", Format.DECIMAL_SI), row("0.05", "0.05", Format.DECIMAL_SI),
                row("0.5", "0.5", Format.DECIMAL_SI), row("0.00050k", "0.5", Format.DECIMAL_SI),
                row("0.00500", "0.005", Format.DECIMAL_SI), row("0.05000", "0.05", Format.DECIMAL_SI),
                row("0.50000", "0.5", Format.DECIMAL_SI), row("0.5e0", "0.5", Format.DECIMAL_EXPONENT),
                row("0.5e-1", "0.05", Format.DECIMAL_EXPONENT), row("0.5e-2", "0.005", Format.DECIMAL_EXPONENT),
                row("10.035M", "10035000", Format.DECIMAL_SI),
                row("1.2e3", "1200", Format.DECIMAL_EXPONENT), row("1.3E+6", "1300000", Format.DECIMAL_EXPONENT),
                row("1.40e9", "1.4e9", Format.DECIMAL_EXPONENT), row("1.53E12", "1.53e12", Format.DECIMAL_EXPONENT),
                row("1.6e15", "1.6e15", Format.DECIMAL_EXPONENT), row("1.7E18", "1.7e18", Format.DECIMAL_EXPONENT),
                row("9.01", "9.01", Format.DECIMAL_SI), row("8.1k", "8100", Format.DECIMAL_SI),
                row("7.123456M", "7123456", Format.DECIMAL_SI), row("6.987654321G", "6987654321", Format.DECIMAL_SI),
                row("5.444T", "5.444e12", Format.DECIMAL_SI), row("40.1T", "4.01e13", Format.DECIMAL_SI),
                row("300.2T", "3.002e14", Format.DECIMAL_SI), row("2.5P", "2.5e15", Format.DECIMAL_SI),
                row("1.01E", "1.01e18", Format.DECIMAL_SI),
                // values that round up to nanos or saturate
                row("3.001n", "4e-9", Format.DECIMAL_SI), row("1.1E-9", "2e-9", Format.DECIMAL_EXPONENT),
                row("0.0000000001", "1e-9", Format.DECIMAL_SI), row("0.0000000005", "1e-9", Format.DECIMAL_SI),
                row("0.00000000050", "1e-9", Format.DECIMAL_SI), row("0.5e-9", "1e-9", Format.DECIMAL_EXPONENT),
                row("0.9n", "1e-9", Format.DECIMAL_SI), row("0.00000012345", "124e-9", Format.DECIMAL_SI),
                row("0.00000012354", "124e-9", Format.DECIMAL_SI),
                row("9Ei", MAX, Format.BINARY_SI), row("9223372036854775807Ki", MAX, Format.BINARY_SI),
                row("12E", "12e18", Format.DECIMAL_SI),
                // fractional binary values
                row("100.035Ki", "102435.84", Format.BINARY_SI), row("0.5Mi", "524288", Format.BINARY_SI),
                row("0.05Gi", "53687091.2", Format.BINARY_SI), row("0.025Ti", "27487790694.4", Format.BINARY_SI),
                // odd but valid
                row("0.000000000001Ki", "2e-9", Format.DECIMAL_SI), row(".001", "0.001", Format.DECIMAL_SI),
                row(".0001k", "0.1", Format.DECIMAL_SI), row("1.", "1", Format.DECIMAL_SI),
                row("1.G", "1e9", Format.DECIMAL_SI));
    }

    private static Arguments row(Object... values) {
        return Arguments.of(values);
    }

    @ParameterizedTest
    @MethodSource("parsedValues")
    void parsesValueAndFormat(String input, String value, Format format) {
        BigDecimal expected = new BigDecimal(value);
        assertParsed(Quantity.parse(input), expected, format);
        assertParsed(Quantity.parse("+" + input), expected, format);
        assertParsed(Quantity.parse("-" + input), expected.negate(), format);
    }

    private static void assertParsed(Quantity quantity, BigDecimal value, Format format) {
        assertThat(quantity.value()).isEqualByComparingTo(value);
        assertThat(quantity.format()).isEqualTo(format);
    }

    /** Value, format, canonical text, an alternate spelling: upstream's TestQuantityString table. */
    static Stream<Arguments> canonicalForms() {
        return Stream.of(
                row("1073741824", Format.BINARY_SI, "1Gi", "1024Mi"),
                row("314572800", Format.BINARY_SI, "300Mi", "307200Ki"),
                row("6144", Format.BINARY_SI, "6Ki", ""),
                row("1074815565824", Format.BINARY_SI, "1001Gi", "1025024Mi"),
                row("1099511627776", Format.BINARY_SI, "1Ti", "1024Gi"),
                row("5", Format.BINARY_SI, "5", "5000m"),
                row("0.5", Format.BINARY_SI, "500m", "0.5"),
                row("1e9", Format.DECIMAL_SI, "1G", "1000M"),
                row("1000e6", Format.DECIMAL_SI, "1G", "0.001T"),
                row("1000000e3", Format.DECIMAL_SI, "1G", ""),
                row("1000000000", Format.DECIMAL_SI, "1G", ""),
                row("1e-3", Format.DECIMAL_SI, "1m", "1000u"),
                row("80e-3", Format.DECIMAL_SI, "80m", ""),
                row("1080e-3", Format.DECIMAL_SI, "1080m", "1.08"),
                row("108e-2", Format.DECIMAL_SI, "1080m", "1080000000n"),
                row("10800e-4", Format.DECIMAL_SI, "1080m", ""),
                row("300e6", Format.DECIMAL_SI, "300M", ""),
                row("1e12", Format.DECIMAL_SI, "1T", ""),
                row("1e18", Format.DECIMAL_SI, "1E", ""),
                row("1e21", Format.DECIMAL_SI, "1e21", "1000E"),
                row("5e21", Format.DECIMAL_SI, "5e21", "5000E"),
                row("1e24", Format.DECIMAL_SI, "1e24", "1000000E"),
                row("1e70", Format.BINARY_SI, "10e69", ""),
                row("2e70", Format.BINARY_SI, "20e69", ""),
                row("1e72", Format.BINARY_SI, "1e72", ""),
                row("1234567e6", Format.DECIMAL_SI, "1234567M", ""),
                row("1234567e-3", Format.BINARY_SI, "1234567m", ""),
                row("3e3", Format.DECIMAL_SI, "3k", ""),
                row("1025", Format.BINARY_SI, "1025", ""),
                row("0", Format.DECIMAL_SI, "0", ""),
                row("0", Format.BINARY_SI, "0", ""),
                row("1e9", Format.DECIMAL_EXPONENT, "1e9", ".001e12"),
                row("1e-3", Format.DECIMAL_EXPONENT, "1e-3", "0.001e0"),
                row("1e-9", Format.DECIMAL_EXPONENT, "1e-9", "1000e-12"),
                row("80e-3", Format.DECIMAL_EXPONENT, "80e-3", ""),
                row("300e6", Format.DECIMAL_EXPONENT, "300e6", ""),
                row("1e12", Format.DECIMAL_EXPONENT, "1e12", ""),
                row("1e3", Format.DECIMAL_EXPONENT, "1e3", ""),
                row("3e3", Format.DECIMAL_EXPONENT, "3e3", ""),
                row("0", Format.DECIMAL_EXPONENT, "0", "00"),
                row("1e-9", Format.DECIMAL_SI, "1n", ""),
                row("80e-9", Format.DECIMAL_SI, "80n", ""),
                row("1080e-9", Format.DECIMAL_SI, "1080n", ""),
                row("108e-8", Format.DECIMAL_SI, "1080n", ""),
                row("10800e-10", Format.DECIMAL_SI, "1080n", ""),
                row("1e-6", Format.DECIMAL_SI, "1u", ""),
                row("80e-6", Format.DECIMAL_SI, "80u", ""),
                row("1080e-6", Format.DECIMAL_SI, "1080u", ""),
                // only reachable through arithmetic: no suffix below n, exponent notation instead
                row("1e-12", Format.DECIMAL_SI, "1e-12", ""),
                row("1e-10", Format.DECIMAL_SI, "100e-12", ""));
    }

    @ParameterizedTest
    @MethodSource("canonicalForms")
    void printsCanonicalForm(String value, Format format, String canonical, String alternate) {
        BigDecimal amount = new BigDecimal(value);
        assertThat(QuantityFormatter.canonical(amount, format)).isEqualTo(canonical);
        if (amount.signum() != 0) {
            assertThat(QuantityFormatter.canonical(amount.negate(), format)).isEqualTo("-" + canonical);
        }
        if (!canonical.contains("e-1")) {
            Quantity reparsed = Quantity.parse(canonical);
            assertThat(reparsed.toString()).isEqualTo(canonical);
            assertThat(reparsed.value()).isEqualByComparingTo(amount);
        }
        if (!alternate.isEmpty()) {
            assertThat(Quantity.parse(alternate).toString()).isEqualTo(canonical);
        }
    }

    /** Parse, then print: upstream's TestQuantityParseEmit and the serialization golden table. */
    @ParameterizedTest
    @CsvSource({
        "1Ki, 1Ki", "1Mi, 1Mi", "1Gi, 1Gi", "1024Mi, 1Gi", "1000M, 1G", ".001Ki, 1024m", ".000001Ki, 1024u",
        ".000000001Ki, 1024n", ".000000000001Ki, 2n", "1, 1", "-1, -1", "1e3, 1e3", "0.1, 100m",
        "0.000000000000001, 1n", "1.5, 1500m", "9223372036854775807, 9223372036854775807",
        "9223372036854775808, 9223372036854775808", "18446744073709551616, 18446744073709551616", "1E, 1E",
        "100E, 100E", "1000E, 1e21", "1e100, 10e99", "8Ei, 9223372036854775807", "-20Ei, -9223372036854775807",
        "-9.5Gi, -9728Mi", "-9.5000000001Gi, -10200547328107374183n", "1.5Gi, 1536Mi", "0.5Gi, 512Mi",
        "1024Ki, 1Mi", "1025Ki, 1025Ki", "100m, 100m", "1000m, 1", "2000k, 2M",
    })
    void parsesAndPrints(String input, String printed) {
        assertThat(Quantity.parse(input).toString()).isEqualTo(printed);
    }

    /** Upstream keeps the input text when its fast path judges it canonical, including these known oddities. */
    @ParameterizedTest
    @CsvSource({"1.441, 1.441", "1.000001, 1.000001", "1.000000001, 1.000000001", "+1, +1", "05, 05", "1E3, 1E3"})
    void keepsInputTextLikeUpstream(String input, String printed) {
        assertThat(Quantity.parse(input).toString()).isEqualTo(printed);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.1.M", "1+1.0M", "aoeu", "10Mo", "0.1am", " 1", "1 ", "1e3e3", "1..5"})
    void rejectsMalformedText(String input) {
        assertThatThrownBy(() -> Quantity.parse(input))
                .isInstanceOf(NumberFormatException.class)
                .hasMessage("quantities must match the regular expression "
                        + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.1mi", ".5i", "1i", "-3.01i", "-3.01e-", "10Mm", "1K", "1e4294967297",
        "1E2147483648", "1ee3"})
    void rejectsUnknownSuffix(String input) {
        assertThatThrownBy(() -> Quantity.parse(input))
                .isInstanceOf(NumberFormatException.class)
                .hasMessage("unable to parse quantity's suffix");
    }

    @Test
    void rejectsEmptyText() {
        assertThatThrownBy(() -> Quantity.parse(""))
                .hasMessage("quantities must match the regular expression "
                        + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    }

    @Test
    void rejectsTextWithoutDigitsThatNeedsTheExactPath() {
        assertThatThrownBy(() -> Quantity.parse("e-10")).hasMessage("unable to parse numeric part of quantity");
    }

    @Test
    void rejectsValuesTooLargeToWriteOut() {
        assertThatThrownBy(() -> Quantity.parse("1234567890123456789e2000000000"))
                .hasMessage("unable to parse numeric part of quantity");
    }

    @Test
    void treatsSuffixWithoutDigitsAsZeroLikeUpstream() {
        assertThat(Quantity.parse("Mi").isZero()).isTrue();
        assertThat(Quantity.parse("-").isZero()).isTrue();
    }

    @Test
    void roundsTinyValuesAwayFromZero() {
        assertThat(Quantity.parse("-.484785E-7466").toString()).isEqualTo("-1e-9");
        assertThat(Quantity.parse(".484785E-7466").toString()).isEqualTo("1e-9");
        assertThat(Quantity.parse("1e-2000000000").toString()).isEqualTo("1e-9");
        assertThat(Quantity.parse("-0.0000000000001").toString()).isEqualTo("-1n");
    }

    @Test
    void keepsHugeExponentsWithoutExpandingThem() {
        Quantity huge = Quantity.parse("1e2147483647");
        assertThat(huge.toString()).isEqualTo("10e2147483646");
        assertThat(huge.compareTo(Quantity.parse("9Ei"))).isPositive();
        assertThat(huge.approximateDouble()).isInfinite();
        assertThat(huge.asLong()).isEmpty();
        assertThat(Quantity.parse("0e2000000000").asLong()).hasValue(0);
    }

    @Test
    void comparesByValue() {
        assertThat(Quantity.parse("100m")).isGreaterThan(Quantity.parse("50m"));
        assertThat(Quantity.parse("10000T")).isGreaterThan(Quantity.parse("100Gi"));
        assertThat(Quantity.parse("50M")).isLessThan(Quantity.parse("50Mi"));
        assertThat(Quantity.parse("200M")).isEqualTo(Quantity.parse("0.2G")).hasSameHashCodeAs(Quantity.parse("0.2G"));
        assertThat(Quantity.parse("0")).isEqualTo(Quantity.parse("0Ki")).hasSameHashCodeAs(Quantity.parse("0.00"));
        assertThat(Quantity.parse("1Gi")).isEqualTo(Quantity.parse("1024Mi"));
    }

    @Test
    void addsAndSubtractsKeepingTheReceiverFormat() {
        assertThat(Quantity.parse("50k").add(Quantity.parse("20")).toString()).isEqualTo("50020");
        assertThat(Quantity.parse("50k").add(Quantity.parse("20"))).isEqualTo(Quantity.parse("50.02k"));
        assertThat(Quantity.parse("50k").subtract(Quantity.parse("20"))).isEqualTo(Quantity.parse("49.98k"));
        assertThat(Quantity.parse("1Gi").add(Quantity.parse("512Mi")).toString()).isEqualTo("1536Mi");
        assertThat(Quantity.parse("10").subtract(Quantity.parse("1Ki")).format()).isEqualTo(Format.DECIMAL_SI);
        assertThat(Quantity.parse("1Ki").subtract(Quantity.parse("24")).toString()).isEqualTo("1k");
        assertThat(Quantity.parse("2Ki").subtract(Quantity.parse("1")).format()).isEqualTo(Format.BINARY_SI);
        assertThat(Quantity.parse("10").subtract(Quantity.parse("1e1")).isZero()).isTrue();
    }

    @Test
    void zeroTakesTheOtherFormat() {
        Quantity zero = Quantity.parse("0");
        for (String value : new String[] {"100m", "1Gi"}) {
            Quantity quantity = Quantity.parse(value);
            assertThat(quantity.add(zero).toString()).isEqualTo(value);
            assertThat(zero.add(quantity).toString()).isEqualTo(value);
            assertThat(quantity.subtract(zero).toString()).isEqualTo(value);
            assertThat(zero.subtract(quantity).toString()).isEqualTo("-" + value);
        }
    }

    @Test
    void arithmeticOverflowingLongMovesToExactForm() {
        Quantity sum = Quantity.parse(MAX).add(Quantity.parse("1"));
        assertThat(sum.toString()).isEqualTo("9223372036854775808");
        assertThat(sum.asLong()).isEmpty();
        Quantity negated = Quantity.parse("0").subtract(Quantity.of(Long.MIN_VALUE, Format.DECIMAL_SI));
        assertThat(negated.toString()).isEqualTo("9223372036854775808");
        assertThat(Quantity.parse("8Ei").add(Quantity.parse("8Ei")).toString()).isEqualTo("18446744073709551614");
    }

    @Test
    void refusesArithmeticThatWouldWriteOutBillionsOfDigits() {
        Quantity huge = Quantity.parse("1e2000000000");
        assertThatThrownBy(() -> huge.add(Quantity.parse("1")))
                .isInstanceOf(ArithmeticException.class)
                .hasMessage("quantity arithmetic needs more than 10000 digits");
        assertThat(huge.add(Quantity.parse("0"))).isEqualTo(huge);
    }

    @ParameterizedTest
    @CsvSource({
        "50k, 50000", "50, 50", "1Ti, 1099511627776", "-3Ki, -3072", "0, 0", "1E, 1000000000000000000",
        "1e3, 1000",
    })
    void convertsToLongWhenUpstreamDoes(String input, long expected) {
        assertThat(Quantity.parse(input).asLong()).hasValue(expected);
    }

    /** Values upstream keeps with a fraction scale or in its exact form report no integer, even when whole. */
    @ParameterizedTest
    @ValueSource(strings = {"1000m", "1.0", "0.5Gi", "1Pi", "9999999999999999999999999999999999999G", "1.5",
        "9223372036854775807", "10E"})
    void hasNoLongWhenUpstreamHasNone(String input) {
        assertThat(Quantity.parse(input).asLong()).isEmpty();
    }

    @Test
    void longConversionFollowsArithmetic() {
        Quantity result = Quantity.parse("50k").add(Quantity.of(20, Format.DECIMAL_EXPONENT))
                .subtract(Quantity.parse("100k"));
        assertThat(result.asLong()).hasValue(-49980);
        assertThat(result.subtract(Quantity.of(-50000, Format.DECIMAL_EXPONENT)).asLong()).hasValue(20);
    }

    @Test
    void approximatesDoubles() {
        assertThat(Quantity.parse("50.703k").approximateDouble()).isEqualTo(50703.0);
        assertThat(Quantity.parse("1.5Gi").approximateDouble()).isCloseTo(1.610612736e9, org.assertj.core.data.Offset.offset(1e-3));
        assertThat(Quantity.parse("100m").approximateDouble()).isEqualTo(100 * 1e-3);
        assertThat(Quantity.parse("1e400").approximateDouble()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(Quantity.parse("-1e400").approximateDouble()).isEqualTo(Double.NEGATIVE_INFINITY);
    }

    @Test
    void convertsFromAndToFabric8() {
        var model = new io.fabric8.kubernetes.api.model.Quantity("1.5", "Gi");
        assertThat(Quantity.fromFabric8(model).toString()).isEqualTo("1536Mi");
        assertThat(Quantity.fromFabric8(new io.fabric8.kubernetes.api.model.Quantity(" 1 ")).toString()).isEqualTo("1");
        assertThat(Quantity.parse("1536Mi").toFabric8()).isEqualTo(new io.fabric8.kubernetes.api.model.Quantity("1536Mi"));
        assertThatThrownBy(() -> Quantity.fromFabric8(new io.fabric8.kubernetes.api.model.Quantity("abc")))
                .isInstanceOf(NumberFormatException.class);
    }

    @Test
    void reportsSign() {
        assertThat(Quantity.parse("-1m").signum()).isEqualTo(-1);
        assertThat(Quantity.parse("0Gi").signum()).isZero();
        assertThat(Quantity.parse("3").signum()).isEqualTo(1);
    }

    @Test
    void cappedValuesBoundArithmeticWhateverTheWrittenExponent() {
        assertThat(Quantity.parse("1e999999999").cappedValue()).isEqualByComparingTo(MAX);
        assertThat(Quantity.parse("-1e999999999").cappedValue()).isEqualByComparingTo("-" + MAX);
        assertThat(Quantity.parse("1e-99999999").cappedValue()).isEqualByComparingTo("1e-9");
        assertThat(Quantity.parse("2Gi").cappedValue()).isEqualByComparingTo(BigDecimal.valueOf(2L << 30));
        assertThat(Quantity.tryParse("1x")).isEmpty();
        assertThat(Quantity.tryParse("100m")).contains(Quantity.parse("0.1"));
    }
}
