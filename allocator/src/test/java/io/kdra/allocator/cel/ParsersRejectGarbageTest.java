package io.kdra.allocator.cel;

import io.kdra.kube.net.Cidr;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random text built from the characters each parser cares about: every input either parses or fails with the
 * library's error (which selectors report), never with another exception.
 */
class ParsersRejectGarbageTest {

    private static final long SEED = 20261203L;
    private static final int TRIES = 1_000;

    static Stream<String> addressTexts() {
        return texts(SEED, "0123456789abcdefABCDEFgx.:%/[]-+ é");
    }

    static Stream<String> urlTexts() {
        return texts(SEED + 1, "htps:/[]@%25?#&=;+:.ab1é \u0001");
    }

    static Stream<String> formatTemplates() {
        return texts(SEED + 2, "%.0123456789sdfebxXoaé ");
    }

    private static Stream<String> texts(long seed, String alphabet) {
        SplittableRandom random = new SplittableRandom(seed);
        return IntStream.range(0, TRIES).mapToObj(i -> {
            StringBuilder text = new StringBuilder();
            int length = random.nextInt(24);
            for (int c = 0; c < length; c++) {
                text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            return text.toString();
        });
    }

    @ParameterizedTest
    @MethodSource("addressTexts")
    void addressesAndPrefixes(String text) {
        assertThatCode(() -> {
            try {
                IpLibrary.parse(text);
            } catch (LibraryFunctionException rejected) {
                // the library's error
            }
            try {
                Cidr.parse(text);
            } catch (IllegalArgumentException rejected) {
                // Go's netip error
            }
        }).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @MethodSource("urlTexts")
    void urls(String text) {
        assertThatCode(() -> {
            try {
                GoUrl url = GoUrl.parse(text);
                url.toString();
                url.escapedPath();
                url.hostname();
                url.port();
                url.query();
            } catch (GoUrl.ParseException rejected) {
                // Go's net/url error
            }
            try {
                GoUrl.parseRequestUri(text);
            } catch (GoUrl.ParseException rejected) {
                // Go's net/url error
            }
        }).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @MethodSource("formatTemplates")
    void formatTemplates(String template) {
        List<Object> args = new ArrayList<>(List.of(1L, 2.5, "text", true, List.of(1L), -0.0));
        assertThatCode(() -> {
            try {
                StringFormatter.format(template, args);
            } catch (LibraryFunctionException rejected) {
                // cel-go's error
            }
        }).doesNotThrowAnyException();
    }
}
