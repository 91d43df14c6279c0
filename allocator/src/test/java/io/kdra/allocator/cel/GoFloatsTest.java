package io.kdra.allocator.cel;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.SplittableRandom;
import java.util.stream.DoubleStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Go's shortest float printing, including values the Java 17 {@link Double#toString} prints too long. */
class GoFloatsTest {

    private static final long SEED = 20261203L;
    private static final int TRIES = 2_000;

    @ParameterizedTest
    @CsvSource({
        "1e23,                   1e+23,                   1E23",
        "2.82879384806159e17,    2.82879384806159e+17,    282879384806159E3",
        "5e-324,                 5e-324,                  5E-324",
        "1.7976931348623157e308, 1.7976931348623157e+308, 17976931348623157E292",
        "0.30000000000000004,    0.30000000000000004,     0.30000000000000004",
        "-2.5e-5,                -2.5e-05,                -0.000025",
        "123456.5,               123456.5,                123456.5",
    })
    void printsGosShortestDigits(double value, String shortest, BigDecimal plain) {
        assertThat(GoFloats.shortest(value)).isEqualTo(shortest);
        assertThat(GoFloats.shortestPlain(value)).isEqualTo(plain.toPlainString());
    }

    static DoubleStream randomDoubles() {
        SplittableRandom random = new SplittableRandom(SEED);
        return random.longs(TRIES).mapToDouble(Double::longBitsToDouble)
                .filter(value -> !Double.isNaN(value) && !Double.isInfinite(value));
    }

    @ParameterizedTest
    @MethodSource("randomDoubles")
    void readsBackWithNoMoreDigitsThanTheJdk(double value) {
        String plain = GoFloats.shortestPlain(value);
        assertThat(Double.parseDouble(plain)).isEqualTo(value);
        assertThat(Double.parseDouble(GoFloats.shortest(value))).isEqualTo(value);
        BigDecimal jdkDigits = new BigDecimal(Double.toString(value)).stripTrailingZeros();
        assertThat(new BigDecimal(plain).stripTrailingZeros().precision()).isLessThanOrEqualTo(jdkDigits.precision());
    }
}
