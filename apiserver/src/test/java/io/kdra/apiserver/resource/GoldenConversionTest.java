package io.kdra.apiserver.resource;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.conversion.VersionConverter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every served version of each golden object converts into every other served version exactly, so the golden
 * files of one directory are the same object in each version (src/test/resources/.../golden/&lt;object&gt;/).
 */
class GoldenConversionTest {

    private static final List<String> OBJECTS = List.of("deviceclass", "resourceclaim", "resourceclaimtemplate",
            "resourceslice-node", "resourceslice-partitions", "resourceslice-counters", "devicetaintrule");

    static Stream<Arguments> conversions() {
        List<Arguments> cases = new ArrayList<>();
        for (String object : OBJECTS) {
            String kind = GoldenObjects.load(object, "v1beta2").get("kind").stringValue();
            List<String> versions = ResourceKinds.servedVersions(kind);
            for (String source : versions) {
                for (String target : versions) {
                    cases.add(Arguments.argumentSet(object + " " + source + " -> " + target, object, source, target));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest
    @MethodSource("conversions")
    void convertsToTheGoldenObjectOfTheTargetVersion(String object, String source, String target) {
        ObjectNode input = GoldenObjects.load(object, source);
        ObjectNode untouched = input.deepCopy();
        VersionConverter converter = ResourceKinds.converters().get(input.get("kind").stringValue());

        ObjectNode converted = converter.convert(input, target);

        assertThat(converted).isEqualTo(GoldenObjects.load(object, target));
        assertThat(input).isEqualTo(untouched);
    }

    @ParameterizedTest
    @MethodSource("conversions")
    void roundTripsThroughTheStorageVersion(String object, String source, String target) {
        ObjectNode input = GoldenObjects.load(object, source);
        String kind = input.get("kind").stringValue();
        VersionConverter converter = ResourceKinds.converters().get(kind);

        ObjectNode stored = converter.convert(converter.convert(input, target), ResourceKinds.storageVersion(kind));

        assertThat(converter.convert(stored, source)).isEqualTo(input);
    }
}
