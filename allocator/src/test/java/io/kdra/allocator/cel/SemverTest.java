package io.kdra.allocator.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SemverTest {

    @Test
    void ordersBySemverPrecedence() {
        List<String> ordered = List.of("0.9.9", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
                "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.2.0", "1.10.0", "2.0.0",
                "18446744073709551615.0.0");
        List<Semver> shuffled = new ArrayList<>(ordered.stream().map(Semver::parse).toList());
        Collections.reverse(shuffled);
        Collections.sort(shuffled);
        assertThat(shuffled).extracting(Semver::toString).containsExactlyElementsOf(ordered);
    }

    @Test
    void ignoresBuildMetadataForOrderAndEquality() {
        Semver plain = Semver.parse("1.2.3");
        Semver withBuild = Semver.parse("1.2.3+build.7");
        assertThat(withBuild).isEqualByComparingTo(plain).isEqualTo(plain).hasSameHashCodeAs(plain);
        assertThat(withBuild.toString()).isEqualTo("1.2.3+build.7");
    }

    @Test
    void exposesComponents() {
        Semver version = Semver.parse("3.14.159-rc.1+abc");
        assertThat(version.major()).isEqualTo(3);
        assertThat(version.minor()).isEqualTo(14);
        assertThat(version.patch()).isEqualTo(159);
        assertThat(Semver.parse("18446744073709551615.0.0").major()).isEqualTo(-1L);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "''                         | Version string empty",
        "1.2                        | No Major.Minor.Patch elements found",
        "v1.2.3                     | Invalid character(s) found in major number \"v1\"",
        "01.2.3                     | Major number must not contain leading zeroes \"01\"",
        "1.02.3                     | Minor number must not contain leading zeroes \"02\"",
        "1.2-rc.3                   | Invalid character(s) found in minor number \"2-rc\"",
        "1.2.a                      | Invalid character(s) found in patch number \"a\"",
        "1.2.03                     | Patch number must not contain leading zeroes \"03\"",
        ".2.3                       | strconv.ParseUint: parsing \"\": invalid syntax",
        "18446744073709551616.0.0   | strconv.ParseUint: parsing \"18446744073709551616\": value out of range",
        "1.2.3-                     | Prerelease is empty",
        "1.2.3-01                   | Numeric PreRelease version must not contain leading zeroes \"01\"",
        "1.2.3-a_b                  | Invalid character(s) found in prerelease \"a_b\"",
        "1.2.3+                     | Build meta data is empty",
        "1.2.3+a..b                 | Build meta data is empty",
        "1.2.3+a/b                  | Invalid character(s) found in build meta data \"a/b\"",
    })
    void rejectsInvalidVersionsWithUpstreamMessages(String text, String message) {
        assertThatThrownBy(() -> Semver.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @ParameterizedTest
    @CsvSource({
        "v1.0.0, 1.0.0", "1.0, 1.0.0", "01.01.01, 1.1.1", "v1, 1.0.0", "v01.2, 1.2.0", "1.2.3-rc.1, 1.2.3-rc.1",
        "00.0.0, 0.0.0",
    })
    void normalizes(String text, String expected) {
        assertThat(Semver.parseNormalized(text).toString()).isEqualTo(expected);
    }

    @Test
    void normalizationRejectsShortVersionsWithMetadata() {
        assertThatThrownBy(() -> Semver.parseNormalized("1.0-rc"))
                .hasMessage("short version cannot contain PreRelease/Build meta data");
        assertThatThrownBy(() -> Semver.parseNormalized("hello"))
                .hasMessage("Invalid character(s) found in major number \"0hello\"");
    }
}
