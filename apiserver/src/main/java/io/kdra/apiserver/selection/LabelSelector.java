package io.kdra.apiserver.selection;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * A parsed label selector in the syntax of {@code ?labelSelector=}: comma-separated requirements
 * {@code k}, {@code !k}, {@code k=v}, {@code k==v}, {@code k!=v}, {@code k in (a,b)}, {@code k notin (a,b)}.
 */
public final class LabelSelector {

    private static final LabelSelector EVERYTHING = new LabelSelector(List.of());

    private enum Operator {
        EXISTS,
        NOT_EXISTS,
        EQUALS,
        NOT_EQUALS,
        IN,
        NOT_IN
    }

    private record Requirement(String key, Operator operator, Set<String> values) {
        boolean matches(Map<String, String> labels) {
            String value = labels.get(key);
            return switch (operator) {
                case EXISTS -> value != null;
                case NOT_EXISTS -> value == null;
                case EQUALS, IN -> value != null && values.contains(value);
                case NOT_EQUALS, NOT_IN -> value == null || !values.contains(value);
            };
        }
    }

    private final List<Requirement> requirements;

    private LabelSelector(List<Requirement> requirements) {
        this.requirements = List.copyOf(requirements);
    }

    public static LabelSelector everything() {
        return EVERYTHING;
    }

    /** @return whether the object's labels meet every requirement; an empty selector reads no labels */
    public boolean matches(ObjectNode object) {
        if (requirements.isEmpty()) {
            return true;
        }
        Map<String, String> labels = Json.stringMap(object, "metadata", "labels");
        for (Requirement requirement : requirements) {
            if (!requirement.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    /** @throws ApiException 400 when the selector does not parse */
    public static LabelSelector parse(String text) {
        if (text == null || text.isBlank()) {
            return EVERYTHING;
        }
        List<Requirement> requirements = new ArrayList<>();
        for (String part : splitTopLevel(text)) {
            requirements.add(requirement(part.trim(), text));
        }
        return new LabelSelector(requirements);
    }

    private static Requirement requirement(String part, String whole) {
        if (part.isEmpty()) {
            throw invalid(whole, "found '', expected: identifier");
        }
        if (part.startsWith("!")) {
            return new Requirement(key(part.substring(1).trim(), whole), Operator.NOT_EXISTS, Set.of());
        }
        String[] words = part.split("\\s+", 2);
        if (words.length == 2) {
            String rest = words[1].trim();
            if (rest.startsWith("in ") || rest.startsWith("in(")) {
                return new Requirement(key(words[0], whole), Operator.IN, valueSet(rest.substring(2), whole));
            }
            if (rest.startsWith("notin ") || rest.startsWith("notin(")) {
                return new Requirement(key(words[0], whole), Operator.NOT_IN, valueSet(rest.substring(5), whole));
            }
        }
        int ne = part.indexOf("!=");
        if (ne > 0) {
            return new Requirement(key(part.substring(0, ne).trim(), whole), Operator.NOT_EQUALS,
                    Set.of(value(part.substring(ne + 2).trim(), whole)));
        }
        int eq = part.indexOf('=');
        if (eq > 0) {
            int valueStart = part.startsWith("==", eq) ? eq + 2 : eq + 1;
            return new Requirement(key(part.substring(0, eq).trim(), whole), Operator.EQUALS,
                    Set.of(value(part.substring(valueStart).trim(), whole)));
        }
        if (part.contains(" ") || part.contains("(")) {
            throw invalid(whole, "found '" + part + "', expected: in, notin, =, ==, !=, gt, lt");
        }
        return new Requirement(key(part, whole), Operator.EXISTS, Set.of());
    }

    private static Set<String> valueSet(String text, String whole) {
        String trimmed = text.trim();
        if (!trimmed.startsWith("(") || !trimmed.endsWith(")")) {
            throw invalid(whole, "found '" + trimmed + "', expected: '('");
        }
        Set<String> values = new LinkedHashSet<>();
        for (String value : trimmed.substring(1, trimmed.length() - 1).split(",", -1)) {
            values.add(value(value.trim(), whole));
        }
        return values;
    }

    private static String key(String key, String whole) {
        String problem = LabelSyntax.keyProblem(key);
        if (problem != null) {
            throw invalid(whole, "invalid label key \"" + key + "\": " + problem);
        }
        return key;
    }

    private static String value(String value, String whole) {
        String problem = LabelSyntax.valueProblem(value);
        if (problem != null) {
            throw invalid(whole, "invalid label value: \"" + value + "\": at key: " + problem);
        }
        return value;
    }

    private static ApiException invalid(String selector, String why) {
        return ApiException.badRequest("unable to parse requirement: " + why + " (selector \"" + selector + "\")");
    }

    /** Splits at commas that are not inside parentheses. */
    private static List<String> splitTopLevel(String text) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(text.substring(start));
        return parts;
    }
}
