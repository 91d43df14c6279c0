package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;

/** A scalar device attribute as the constraints compare it. */
record AttributeValue(Kind kind, Object value) {

    enum Kind {
        STRING,
        INT,
        BOOL,
        VERSION
    }

    /** The scalar value of an attribute, or null for a type the constraints do not know (such as list types). */
    static AttributeValue of(DeviceAttribute attribute) {
        if (attribute.getString() != null) {
            return new AttributeValue(Kind.STRING, attribute.getString());
        }
        if (attribute.getInt() != null) {
            return new AttributeValue(Kind.INT, attribute.getInt());
        }
        if (attribute.getBool() != null) {
            return new AttributeValue(Kind.BOOL, attribute.getBool());
        }
        if (attribute.getVersion() != null) {
            return new AttributeValue(Kind.VERSION, attribute.getVersion());
        }
        return null;
    }

    /**
     * Equality for matchAttribute: same type and value. Semantic versions are in minimal form, so they compare as
     * strings.
     */
    boolean sameAs(AttributeValue other) {
        return kind == other.kind && value.equals(other.value);
    }

    /** Equality for distinctAttribute: versions are equal when they have the same precedence (build metadata aside). */
    boolean duplicates(AttributeValue other) {
        if (kind != other.kind) {
            return false;
        }
        if (kind == Kind.VERSION) {
            return withoutBuildMetadata((String) value).equals(withoutBuildMetadata((String) other.value));
        }
        return value.equals(other.value);
    }

    private static String withoutBuildMetadata(String version) {
        int plus = version.indexOf('+');
        return plus < 0 ? version : version.substring(0, plus);
    }
}
