package io.kdra.apiserver.resource;

import io.kdra.apiserver.api.FieldError;
import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.api.FieldError.Type;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import tools.jackson.databind.node.ObjectNode;

/**
 * Expected validation errors, compared with the actual ones field by field (type, path, bad value as JSON, detail).
 * A bad value of {@code null} means "not shown", as for Required or Too long.
 */
record Expect(Type type, String field, String badValueJson, String detail) {

    static Expect error(Type type, String field, String badValueJson, String detail) {
        return new Expect(type, field, badValueJson, detail);
    }

    static Expect required(String field, String detail) {
        return new Expect(Type.REQUIRED, field, null, detail);
    }

    static Expect forbidden(String field, String detail) {
        return new Expect(Type.FORBIDDEN, field, null, detail);
    }

    static Expect invalid(String field, String badValueJson, String detail) {
        return new Expect(Type.INVALID, field, badValueJson, detail);
    }

    static Expect tooLong(String field, int max) {
        return new Expect(Type.TOO_LONG, field, null, "may not be more than " + max + " bytes");
    }

    static Expect tooMany(String field, int actual, int max) {
        return new Expect(Type.TOO_MANY, field, String.valueOf(actual), "must have at most " + max + " items");
    }

    static Expect duplicate(String field, String badValueJson) {
        return new Expect(Type.DUPLICATE, field, badValueJson, "");
    }

    static Expect notSupported(String field, String badValue, String supported) {
        return new Expect(Type.NOT_SUPPORTED, field, "\"" + badValue + "\"", "supported values: " + supported);
    }

    static Expect of(FieldError error) {
        return new Expect(error.type(), error.field(),
                error.badValue() == null ? null : error.badValue().toString(), error.detail());
    }

    static void assertErrors(List<FieldError> actual, Expect... expected) {
        assertThat(actual.stream().map(Expect::of).toList()).containsExactly(expected);
    }

    /** A table row: a name, the object, and the errors it must produce. */
    static Arguments row(String name, ObjectNode object, Expect... expected) {
        return Arguments.argumentSet(name, object, List.of(expected));
    }

    static Stream<Arguments> rows(Arguments... rows) {
        return Stream.of(rows);
    }
}
