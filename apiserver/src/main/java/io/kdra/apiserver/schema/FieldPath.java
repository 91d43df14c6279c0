package io.kdra.apiserver.schema;

/**
 * Where a value sits in the object being decoded, rendered lazily: most values are fine and their paths are never
 * printed. Strict decoding prints list indices and map keys ({@code spec.containers[0].imagee}); type errors print the
 * struct fields alone ({@code spec.containers.image}), as Go's decoder does.
 */
record FieldPath(FieldPath parent, String name, int index, boolean mapKey) {

    static final FieldPath ROOT = new FieldPath(null, null, -1, false);

    FieldPath field(String field) {
        return new FieldPath(this, field, -1, false);
    }

    /** A map's entry: strict decoding names it, Go's type errors leave it out. */
    FieldPath key(String key) {
        return new FieldPath(this, key, -1, true);
    }

    FieldPath element(int i) {
        return new FieldPath(this, null, i, false);
    }

    /** @return e.g. {@code spec.devices.requests[0].exactly.cont} */
    String withIndices() {
        StringBuilder out = new StringBuilder();
        render(out, true);
        return out.toString();
    }

    /** @return e.g. {@code spec.devices.requests.exactly.count} */
    String fieldsOnly() {
        StringBuilder out = new StringBuilder();
        render(out, false);
        return out.toString();
    }

    private void render(StringBuilder out, boolean indices) {
        if (parent == null) {
            return;
        }
        parent.render(out, indices);
        if (mapKey && !indices) {
            return;
        }
        if (name != null) {
            out.append(out.length() == 0 ? "" : ".").append(name);
        } else if (indices) {
            out.append('[').append(index).append(']');
        }
    }
}
