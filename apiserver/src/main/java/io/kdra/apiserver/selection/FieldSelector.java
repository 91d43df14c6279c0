package io.kdra.apiserver.selection;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import tools.jackson.databind.node.ObjectNode;

/**
 * A parsed field selector ({@code ?fieldSelector=spec.nodeName=node-1,status.phase!=Failed}); only the fields the
 * resource declares selectable are accepted, as in kube-apiserver. Terms hold the fields of the stored objects, which
 * a resource serving another's objects may name differently (events.k8s.io {@code regarding.name} selects core
 * {@code involvedObject.name}).
 */
public final class FieldSelector {

    private static final FieldSelector EVERYTHING = new FieldSelector(List.of());

    /** @param path the field's names, split once here rather than per object compared */
    private record Term(String field, String[] path, boolean equal, String value) {}

    /**
     * A value the selector requires of one field with {@code =}, and how to read that field's value from an object
     * (as the selector compares it).
     */
    public record RequiredValue(String field, String value, Function<ObjectNode, String> reader) {}

    private final List<Term> terms;

    private FieldSelector(List<Term> terms) {
        this.terms = List.copyOf(terms);
    }

    public static FieldSelector everything() {
        return EVERYTHING;
    }

    /** @return the value a term requires for the field with {@code =}, or null (used to narrow lists by name) */
    public String requiredValue(String field) {
        for (Term term : terms) {
            if (term.equal && term.field.equals(field)) {
                return term.value;
            }
        }
        return null;
    }

    /**
     * @return the first field the selector requires an exact value of, so that a watch can be indexed by it; null
     *     when it requires none (only {@code !=} terms, or no terms)
     */
    public RequiredValue firstRequiredValue(ResourceType type) {
        for (Term term : terms) {
            if (term.equal) {
                return new RequiredValue(term.field, term.value,
                        object -> SelectableFields.value(type, object, term.field, term.path));
            }
        }
        return null;
    }

    public boolean matches(ResourceType type, ObjectNode object) {
        for (Term term : terms) {
            boolean equal = term.value.equals(SelectableFields.value(type, object, term.field, term.path));
            if (equal != term.equal) {
                return false;
            }
        }
        return true;
    }

    /** @throws ApiException 400 on bad syntax or a field the resource does not support */
    public static FieldSelector parse(ResourceType type, String text) {
        if (text == null || text.isBlank()) {
            return EVERYTHING;
        }
        List<Term> terms = new ArrayList<>();
        for (String part : splitUnescaped(text, ',')) {
            if (part.isEmpty()) {
                continue;
            }
            Term term = term(part);
            String storedField = SelectableFields.storedField(type, term.field);
            if (storedField == null) {
                throw ApiException.badRequest(SelectableFields.unsupportedMessage(type, term.field));
            }
            terms.add(new Term(storedField, SelectableFields.path(storedField), term.equal, term.value));
        }
        return new FieldSelector(terms);
    }

    private static Term term(String part) {
        int ne = indexUnescaped(part, "!=");
        if (ne >= 0) {
            return new Term(unescape(part.substring(0, ne)), null, false, unescape(part.substring(ne + 2)));
        }
        int eq = indexUnescaped(part, "==");
        if (eq >= 0) {
            return new Term(unescape(part.substring(0, eq)), null, true, unescape(part.substring(eq + 2)));
        }
        eq = indexUnescaped(part, "=");
        if (eq >= 0) {
            return new Term(unescape(part.substring(0, eq)), null, true, unescape(part.substring(eq + 1)));
        }
        throw ApiException.badRequest("invalid selector: '" + part + "'; can't understand '" + part + "'");
    }

    private static int indexUnescaped(String s, String token) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '\\') {
                i++;
            } else if (s.startsWith(token, i)) {
                return i;
            }
        }
        return -1;
    }

    private static List<String> splitUnescaped(String s, char separator) {
        List<String> parts = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                current.append(c).append(s.charAt(++i));
            } else if (c == separator) {
                parts.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        parts.add(current.toString());
        return parts;
    }

    private static String unescape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                c = s.charAt(++i);
            }
            out.append(c);
        }
        return out.toString().trim();
    }
}
