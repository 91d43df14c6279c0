package io.kdra.apiserver.selection;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.json.Json;
import tools.jackson.databind.node.ObjectNode;

/** The {@code ?labelSelector=} of a list or watch: kube's label selector applied to stored JSON objects. */
public final class LabelSelector {

    private static final LabelSelector EVERYTHING = new LabelSelector(io.kdra.kube.selection.LabelSelector.everything());

    private final io.kdra.kube.selection.LabelSelector selector;

    private LabelSelector(io.kdra.kube.selection.LabelSelector selector) {
        this.selector = selector;
    }

    public static LabelSelector everything() {
        return EVERYTHING;
    }

    /** @return whether the object's labels meet every requirement; an empty selector reads no labels */
    public boolean matches(ObjectNode object) {
        return selector.isEverything() || selector.matches(Json.stringMap(object, "metadata", "labels"));
    }

    /** @throws ApiException 400 when the selector does not parse */
    public static LabelSelector parse(String text) {
        try {
            io.kdra.kube.selection.LabelSelector parsed = io.kdra.kube.selection.LabelSelector.parse(text);
            return parsed.isEverything() ? EVERYTHING : new LabelSelector(parsed);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }
}
