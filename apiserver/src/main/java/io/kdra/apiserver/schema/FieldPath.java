package io.kdra.apiserver.schema;

/**
 * Where a value sits in the object being decoded, rendered lazily: most values are fine and their paths are never
 * printed. Strict decoding prints list indices ({@code spec.containers[0].imagee}); type errors print the fields alone
 * ({@code spec.containers.image}), as Go's decoder does.
 */
record FieldPath(FieldPath parent, String name, int index) {

    static final FieldPath ROOT = new FieldPath(null, null, -1);

    FieldPath field(String field) {
        return new FieldPath(this, field, -1);
    }

    FieldPath element(int i) {
        return new FieldPath(this, null, i);
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
        if (name != null) {
            out.append(out.length() == 0 ? "" : ".").append(name);
        } else if (indices) {
            out.append('[').append(index).append(']');
        }
    }
}
