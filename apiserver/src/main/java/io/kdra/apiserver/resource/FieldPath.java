package io.kdra.apiserver.resource;

/**
 * A field path as kube-apiserver prints it in validation errors: {@code spec.devices.requests[0].name},
 * map keys in brackets without quotes ({@code attributes[dra.example.com/model]}).
 */
record FieldPath(String value) {

    /** The object itself: its children are top-level fields such as {@code spec}. */
    static final FieldPath ROOT = new FieldPath("");

    FieldPath child(String name) {
        return new FieldPath(value.isEmpty() ? name : value + "." + name);
    }

    FieldPath child(String name, String... more) {
        FieldPath path = child(name);
        for (String next : more) {
            path = path.child(next);
        }
        return path;
    }

    FieldPath index(int index) {
        return new FieldPath(value + "[" + index + "]");
    }

    FieldPath key(String key) {
        return new FieldPath(value + "[" + key + "]");
    }

    @Override
    public String toString() {
        return value;
    }
}
