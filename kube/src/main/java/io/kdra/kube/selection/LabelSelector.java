package io.kdra.kube.selection;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A label selector: requirements that all must hold for a set of labels. Read from the {@code ?labelSelector=} syntax
 * ({@link #parse(String)}: {@code k}, {@code !k}, {@code k=v}, {@code k==v}, {@code k!=v}, {@code k in (a,b)},
 * {@code k notin (a,b)}, comma-separated) or from a {@code metav1.LabelSelector} ({@link #of}). Immutable.
 */
public final class LabelSelector {

    private static final LabelSelector EVERYTHING = new LabelSelector(List.of(), true);
    private static final LabelSelector NOTHING = new LabelSelector(List.of(), false);

    /** How a requirement compares a label's value. */
    public enum Operator {
        EXISTS,
        DOES_NOT_EXIST,
        EQUALS,
        NOT_EQUALS,
        IN,
        NOT_IN,
        /** The label's value, read as a 64-bit integer, is greater than the one value. */
        GREATER_THAN,
        /** The label's value, read as a 64-bit integer, is less than the one value. */
        LESS_THAN
    }

    /** One requirement on one label key, with the matching rules of apimachinery's {@code labels.Requirement}. */
    public record Requirement(String key, Operator operator, Set<String> values) {

        public Requirement {
            values = Set.copyOf(values);
        }

        public boolean matches(Map<String, String> labels) {
            String value = labels.get(key);
            return switch (operator) {
                case EXISTS -> value != null;
                case DOES_NOT_EXIST -> value == null;
                case EQUALS, IN -> value != null && values.contains(value);
                case NOT_EQUALS, NOT_IN -> value == null || !values.contains(value);
                case GREATER_THAN, LESS_THAN -> value != null && compares(value);
            };
        }

        private boolean compares(String value) {
            long label;
            long bound;
            try {
                label = Long.parseLong(value);
                bound = Long.parseLong(values.iterator().next());
            } catch (NumberFormatException | java.util.NoSuchElementException notComparable) {
                return false;
            }
            return operator == Operator.GREATER_THAN ? label > bound : label < bound;
        }
    }

    private final List<Requirement> requirements;
    private final boolean matchesWithoutRequirements;

    private LabelSelector(List<Requirement> requirements, boolean matchesWithoutRequirements) {
        this.requirements = List.copyOf(requirements);
        this.matchesWithoutRequirements = matchesWithoutRequirements;
    }

    /** The selector that matches all labels. */
    public static LabelSelector everything() {
        return EVERYTHING;
    }

    /** The selector that matches no labels (what a nil {@code metav1.LabelSelector} selects). */
    public static LabelSelector nothing() {
        return NOTHING;
    }

    /** A selector of the given requirements; none selects everything. */
    public static LabelSelector of(List<Requirement> requirements) {
        return requirements.isEmpty() ? EVERYTHING : new LabelSelector(requirements, true);
    }

    /**
     * A {@code metav1.LabelSelector} as apimachinery's {@code LabelSelectorAsSelector} reads it: null selects nothing,
     * an empty one everything; {@code matchLabels} are equality requirements.
     *
     * @throws IllegalArgumentException for an operator other than In, NotIn, Exists and DoesNotExist, or values that
     *     do not fit the operator
     */
    public static LabelSelector of(io.fabric8.kubernetes.api.model.LabelSelector selector) {
        if (selector == null) {
            return NOTHING;
        }
        List<Requirement> requirements = new ArrayList<>();
        if (selector.getMatchLabels() != null) {
            selector.getMatchLabels().forEach((key, value) ->
                    requirements.add(new Requirement(key, Operator.EQUALS, Set.of(value))));
        }
        if (selector.getMatchExpressions() != null) {
            for (var expression : selector.getMatchExpressions()) {
                List<String> values = expression.getValues() == null ? List.of() : expression.getValues();
                Operator operator = switch (String.valueOf(expression.getOperator())) {
                    case "In" -> Operator.IN;
                    case "NotIn" -> Operator.NOT_IN;
                    case "Exists" -> Operator.EXISTS;
                    case "DoesNotExist" -> Operator.DOES_NOT_EXIST;
                    default -> throw new IllegalArgumentException(
                            "\"" + expression.getOperator() + "\" is not a valid label selector operator");
                };
                boolean needsValues = operator == Operator.IN || operator == Operator.NOT_IN;
                if (needsValues && values.isEmpty()) {
                    throw new IllegalArgumentException(
                            "for 'in', 'notin' operators, values set can't be empty");
                }
                if (!needsValues && !values.isEmpty()) {
                    throw new IllegalArgumentException(
                            "values set must be empty for exists and does not exist");
                }
                requirements.add(new Requirement(expression.getKey(), operator, new LinkedHashSet<>(values)));
            }
        }
        return of(requirements);
    }

    /**
     * Parses the {@code ?labelSelector=} syntax; blank text selects everything.
     *
     * @throws IllegalArgumentException {@code unable to parse requirement: <why> (selector "<text>")}
     */
    public static LabelSelector parse(String text) {
        if (text == null || text.isBlank()) {
            return EVERYTHING;
        }
        List<Requirement> requirements = new ArrayList<>();
        for (String part : splitTopLevel(text)) {
            requirements.add(requirement(part.trim(), text));
        }
        return of(requirements);
    }

    /** Whether the labels meet every requirement. */
    public boolean matches(Map<String, String> labels) {
        if (requirements.isEmpty()) {
            return matchesWithoutRequirements;
        }
        for (Requirement requirement : requirements) {
            if (!requirement.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    /** Whether this selector matches every set of labels, so callers may skip reading labels. */
    public boolean isEverything() {
        return requirements.isEmpty() && matchesWithoutRequirements;
    }

    public List<Requirement> requirements() {
        return requirements;
    }

    private static Requirement requirement(String part, String whole) {
        if (part.isEmpty()) {
            throw invalid(whole, "found '', expected: identifier");
        }
        if (part.startsWith("!")) {
            return new Requirement(key(part.substring(1).trim(), whole), Operator.DOES_NOT_EXIST, Set.of());
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

    private static IllegalArgumentException invalid(String selector, String why) {
        return new IllegalArgumentException(
                "unable to parse requirement: " + why + " (selector \"" + selector + "\")");
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
