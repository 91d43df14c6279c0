package io.kdra.allocator.cel;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class QuantityPropertiesTest {

    private static final String[] SUFFIXES = {"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti",
        "e-3", "e0", "e7", "E12"};

    @Provide
    Arbitrary<String> quantityTexts() {
        Arbitrary<String> sign = Arbitraries.of("", "-", "+");
        Arbitrary<String> digits = Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(12);
        Arbitrary<String> fraction = Arbitraries.oneOf(Arbitraries.just(""),
                Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(6).map(d -> "." + d));
        return Combinators.combine(sign, digits, fraction, Arbitraries.of(SUFFIXES))
                .as((s, d, f, suffix) -> s + d + f + suffix);
    }

    /** Printing then parsing gives the same value, and printing is stable. */
    @Property(tries = 500)
    void printedFormParsesBackToTheSameValue(@ForAll("quantityTexts") String text) {
        Quantity quantity = Quantity.parse(text);
        Quantity reparsed = Quantity.parse(quantity.toString());
        assertThat(reparsed).isEqualTo(quantity);
        assertThat(Quantity.parse(reparsed.toString()).toString()).isEqualTo(reparsed.toString());
    }

    /** Arithmetic is exact: it agrees with BigDecimal. Reparsing caps binary values at 2^63-1, as upstream does. */
    @Property(tries = 500)
    void addAndSubtractAreExact(@ForAll("quantityTexts") String left, @ForAll("quantityTexts") String right) {
        Quantity a = Quantity.parse(left);
        Quantity b = Quantity.parse(right);
        BigDecimal sum = a.value().add(b.value());
        assertThat(a.add(b).value()).isEqualByComparingTo(sum);
        assertThat(a.subtract(b).value()).isEqualByComparingTo(a.value().subtract(b.value()));
        assertThat(a.add(b).compareTo(a)).isEqualTo(b.signum());
        if (sum.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0) {
            assertThat(Quantity.parse(a.add(b).toString()).value()).isEqualByComparingTo(sum);
        }
    }

    /** An integer view, when present, is the exact value. */
    @Property(tries = 500)
    void longViewIsExact(@ForAll("quantityTexts") String text) {
        Quantity quantity = Quantity.parse(text);
        quantity.asLong().ifPresent(value ->
                assertThat(BigDecimal.valueOf(value)).isEqualByComparingTo(quantity.value()));
    }
}
