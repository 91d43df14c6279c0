package io.kdra.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Seeded random quantity texts: the same texts on every run, so a failure names a reproducible input. */
class QuantityPropertiesTest {

    private static final long SEED = 20261203L;
    private static final int TRIES = 500;
    private static final List<String> SIGNS = List.of("", "-", "+");
    private static final List<String> SUFFIXES = List.of("", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi",
            "Gi", "Ti", "e-3", "e0", "e7", "E12");

    static Stream<String> quantityTexts() {
        SplittableRandom random = new SplittableRandom(SEED);
        return IntStream.range(0, TRIES).mapToObj(i -> randomText(random));
    }

    static Stream<List<String>> quantityTextPairs() {
        SplittableRandom random = new SplittableRandom(SEED + 1);
        return IntStream.range(0, TRIES).mapToObj(i -> List.of(randomText(random), randomText(random)));
    }

    private static String randomText(SplittableRandom random) {
        String fraction = random.nextBoolean() ? "" : "." + digits(random, 1 + random.nextInt(6));
        return pick(random, SIGNS) + digits(random, 1 + random.nextInt(12)) + fraction + pick(random, SUFFIXES);
    }

    private static String digits(SplittableRandom random, int count) {
        StringBuilder digits = new StringBuilder(count);
        for (int i = 0; i < count; i++) {
            digits.append((char) ('0' + random.nextInt(10)));
        }
        return digits.toString();
    }

    private static String pick(SplittableRandom random, List<String> choices) {
        return choices.get(random.nextInt(choices.size()));
    }

    /** Printing then parsing gives the same value, and printing is stable. */
    @ParameterizedTest
    @MethodSource("quantityTexts")
    void printedFormParsesBackToTheSameValue(String text) {
        Quantity quantity = Quantity.parse(text);
        Quantity reparsed = Quantity.parse(quantity.toString());
        assertThat(reparsed).isEqualTo(quantity);
        assertThat(Quantity.parse(reparsed.toString()).toString()).isEqualTo(reparsed.toString());
    }

    /** Arithmetic is exact: it agrees with BigDecimal. Reparsing caps binary values at 2^63-1, as upstream does. */
    @ParameterizedTest
    @MethodSource("quantityTextPairs")
    void addAndSubtractAreExact(List<String> texts) {
        Quantity a = Quantity.parse(texts.get(0));
        Quantity b = Quantity.parse(texts.get(1));
        BigDecimal sum = a.value().add(b.value());
        assertThat(a.add(b).value()).isEqualByComparingTo(sum);
        assertThat(a.subtract(b).value()).isEqualByComparingTo(a.value().subtract(b.value()));
        assertThat(a.add(b).compareTo(a)).isEqualTo(b.signum());
        if (sum.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0) {
            assertThat(Quantity.parse(a.add(b).toString()).value()).isEqualByComparingTo(sum);
        }
    }

    /** An integer view, when present, is the exact value. */
    @ParameterizedTest
    @MethodSource("quantityTexts")
    void longViewIsExact(String text) {
        Quantity quantity = Quantity.parse(text);
        quantity.asLong().ifPresent(value ->
                assertThat(BigDecimal.valueOf(value)).isEqualByComparingTo(quantity.value()));
    }
}
