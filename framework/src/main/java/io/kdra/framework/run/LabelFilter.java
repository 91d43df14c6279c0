package io.kdra.framework.run;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A ginkgo label filter ({@code --label-filter}), so that kdra selects what upstream's jobs select: labels compared
 * without case, {@code /regexp/} matching any label, {@code !}, {@code &&}, {@code ||} (also {@code ,}), parentheses,
 * and set operations on {@code key:value} labels — {@code Feature: isEmpty}, {@code containsAny}, {@code containsAll},
 * {@code consistsOf}, {@code isSubsetOf} with a value or a {@code {a, b}} set. A colon followed by a space starts a set
 * operation; without the space it is part of the label ({@code FeatureGate:DRAPrioritizedList}). Precedence from
 * loosest: {@code ||}, {@code &&}, {@code !}, set operation.
 */
public final class LabelFilter implements Predicate<Collection<String>> {

    private static final LabelFilter EVERYTHING = new LabelFilter("", labels -> true);
    private static final String OPERATORS = "&|!,()/";
    private static final Map<String, String> SET_OPERATIONS = Map.of("containsany", "containsAny", "containsall",
            "containsAll", "consistsof", "consistsOf", "issubsetof", "isSubsetOf", "isempty", "isEmpty");

    private final String expression;
    private final Predicate<Collection<String>> predicate;

    private LabelFilter(String expression, Predicate<Collection<String>> predicate) {
        this.expression = expression;
        this.predicate = predicate;
    }

    /**
     * Parses a filter; the empty filter selects every spec.
     *
     * @throws IllegalArgumentException naming the problem and its position
     */
    public static LabelFilter parse(String expression) {
        if (expression == null || expression.isBlank()) {
            return EVERYTHING;
        }
        return new LabelFilter(expression, new Parser(expression).parseAll());
    }

    /** Whether a spec with these labels is selected. */
    @Override
    public boolean test(Collection<String> labels) {
        return predicate.test(labels);
    }

    @Override
    public String toString() {
        return expression;
    }

    private static Set<String> valuesOf(String key, Collection<String> labels) {
        Set<String> values = new HashSet<>();
        for (String label : labels) {
            int colon = label.indexOf(':');
            if (colon >= 0 && label.substring(0, colon).trim().equalsIgnoreCase(key)) {
                values.add(label.substring(colon + 1).trim().toLowerCase(Locale.ROOT));
            }
        }
        return values;
    }

    private static final class Parser {

        private final String input;
        private int position;

        Parser(String input) {
            this.input = input;
        }

        Predicate<Collection<String>> parseAll() {
            Predicate<Collection<String>> result = or();
            skipSpaces();
            if (position < input.length()) {
                throw error(input.charAt(position) == ')' ? "')' without a matching '('"
                        : "unexpected '" + input.charAt(position) + "': two labels need an operator between them");
            }
            return result;
        }

        private Predicate<Collection<String>> or() {
            Predicate<Collection<String>> left = and();
            while (true) {
                skipSpaces();
                if (consume("||") || consume(",")) {
                    left = left.or(and());
                } else {
                    return left;
                }
            }
        }

        private Predicate<Collection<String>> and() {
            Predicate<Collection<String>> left = unary();
            while (true) {
                skipSpaces();
                if (consume("&&")) {
                    left = left.and(unary());
                } else {
                    return left;
                }
            }
        }

        private Predicate<Collection<String>> unary() {
            skipSpaces();
            if (consume("!")) {
                return unary().negate();
            }
            return primary();
        }

        private Predicate<Collection<String>> primary() {
            skipSpaces();
            if (position >= input.length()) {
                throw error("unexpected end: an operator lacks its right-hand operand");
            }
            char c = input.charAt(position);
            if (c == '(') {
                int open = position++;
                skipSpaces();
                if (position < input.length() && input.charAt(position) == ')') {
                    throw error("empty '()' group");
                }
                Predicate<Collection<String>> inner = or();
                skipSpaces();
                if (!consume(")")) {
                    position = open;
                    throw error("'(' without a matching ')'");
                }
                return inner;
            }
            if (c == '/') {
                return regex();
            }
            if (c == '&' || c == '|' || c == ',' || c == ')') {
                throw error("operator '" + c + "' lacks its left-hand operand");
            }
            return labelOrSet();
        }

        private Predicate<Collection<String>> regex() {
            int start = position;
            int end = input.indexOf('/', start + 1);
            if (end < 0) {
                throw error("regular expression without its closing '/'");
            }
            position = end + 1;
            try {
                Pattern pattern = Pattern.compile(input.substring(start + 1, end));
                return labels -> labels.stream().anyMatch(label -> pattern.matcher(label).find());
            } catch (PatternSyntaxException e) {
                position = start;
                throw error("invalid regular expression: " + e.getDescription());
            }
        }

        private Predicate<Collection<String>> labelOrSet() {
            int start = position;
            String text = until(OPERATORS + ":");
            if (position < input.length() && input.charAt(position) == ':') {
                if (position + 1 < input.length() && input.charAt(position + 1) == ' ') {
                    String key = text.trim();
                    if (key.isEmpty()) {
                        throw error("set operation without its key");
                    }
                    position++;
                    return setOperation(key);
                }
                text = text + until(OPERATORS);
            }
            String label = text.trim();
            if (label.isEmpty()) {
                position = start;
                throw error("empty label");
            }
            for (String operation : SET_OPERATIONS.values()) {
                if (label.toLowerCase(Locale.ROOT).contains(" " + operation.toLowerCase(Locale.ROOT))) {
                    position = start;
                    throw error("'" + label + "' looks like the set operation '" + operation
                            + "' without its key: write 'key: " + operation + " ...'");
                }
            }
            String expected = label.toLowerCase(Locale.ROOT);
            return labels -> labels.stream().anyMatch(candidate -> candidate.toLowerCase(Locale.ROOT).equals(expected));
        }

        private Predicate<Collection<String>> setOperation(String key) {
            skipSpaces();
            int start = position;
            String operation = SET_OPERATIONS.get(until(" )").toLowerCase(Locale.ROOT));
            if (operation == null) {
                position = start;
                throw error("unknown set operation; use one of containsAny, containsAll, consistsOf, isSubsetOf, "
                        + "isEmpty");
            }
            if (operation.equals("isEmpty")) {
                return labels -> valuesOf(key, labels).isEmpty();
            }
            List<String> expected = setArgument(operation);
            return switch (operation) {
                case "containsAny" -> labels -> expected.stream().anyMatch(valuesOf(key, labels)::contains);
                case "containsAll" -> labels -> valuesOf(key, labels).containsAll(expected);
                case "consistsOf" -> labels -> valuesOf(key, labels).equals(Set.copyOf(expected));
                default -> labels -> Set.copyOf(expected).containsAll(valuesOf(key, labels));
            };
        }

        private List<String> setArgument(String operation) {
            skipSpaces();
            int start = position;
            String argument;
            if (position < input.length() && input.charAt(position) == '{') {
                int close = input.indexOf('}', position);
                if (close < 0) {
                    throw error("set argument without its closing '}'");
                }
                argument = input.substring(position + 1, close);
                position = close + 1;
            } else {
                argument = until(OPERATORS).trim();
            }
            if (argument.isBlank()) {
                position = start;
                throw error(position < input.length() && input.charAt(position) == '/'
                        ? "set operations take no regular expressions" : operation + " needs an argument");
            }
            List<String> values = new ArrayList<>();
            for (String value : argument.split(",", -1)) {
                String trimmed = value.trim().toLowerCase(Locale.ROOT);
                if (trimmed.isEmpty()) {
                    position = start;
                    throw error("empty value in the set argument");
                }
                if (trimmed.chars().anyMatch(ch -> OPERATORS.indexOf(ch) >= 0)) {
                    position = start;
                    throw error("invalid value '" + trimmed + "' in the set argument");
                }
                values.add(trimmed);
            }
            return values;
        }

        private String until(String stops) {
            int start = position;
            while (position < input.length() && stops.indexOf(input.charAt(position)) < 0) {
                position++;
            }
            return input.substring(start, position);
        }

        private boolean consume(String token) {
            if (input.startsWith(token, position)) {
                position += token.length();
                return true;
            }
            if (token.equals("&&") && position < input.length() && input.charAt(position) == '&') {
                throw error("'&' is not an operator: did you mean '&&'?");
            }
            if (token.equals("||") && position < input.length() && input.charAt(position) == '|') {
                throw error("'|' is not an operator: did you mean '||'?");
            }
            return false;
        }

        private void skipSpaces() {
            while (position < input.length() && input.charAt(position) == ' ') {
                position++;
            }
        }

        private IllegalArgumentException error(String problem) {
            return new IllegalArgumentException("label filter \"" + input + "\": " + problem + " (at position "
                    + (position + 1) + ")");
        }
    }
}
