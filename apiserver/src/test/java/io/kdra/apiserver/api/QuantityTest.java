package io.kdra.apiserver.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class QuantityTest {

    @Test
    void valuesAreBoundedAsGoBoundsThem() {
        assertThat(value("1e999999999")).isEqualByComparingTo(BigDecimal.valueOf(Long.MAX_VALUE));
        assertThat(value("-1e999999999")).isEqualByComparingTo(BigDecimal.valueOf(Long.MAX_VALUE).negate());
        assertThat(value("1e-99999999")).isEqualByComparingTo("1e-9");
        assertThat(value("0.1n")).isEqualByComparingTo("1e-9");
        assertThat(value("1.5n")).isEqualByComparingTo("2e-9");
        assertThat(value("-1.5n")).isEqualByComparingTo("-2e-9");
        assertThat(value("100m")).isEqualByComparingTo("0.1");
        assertThat(value("2Gi")).isEqualByComparingTo(BigDecimal.valueOf(2L << 30));
        assertThat(value("0e999999999")).isEqualByComparingTo("0");
    }

    @Test
    void theTextIsKeptForMessages() {
        assertThat(Quantity.parse("1e999999999").orElseThrow().text()).isEqualTo("1e999999999");
        assertThat(Quantity.parse("1x")).isEmpty();
    }

    private static BigDecimal value(String text) {
        return Quantity.parse(text).orElseThrow().value();
    }
}
