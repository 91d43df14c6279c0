package io.kdra.allocator.cel;

import static dev.cel.common.CelFunctionDecl.newFunctionDeclaration;
import static dev.cel.common.CelOverloadDecl.newMemberOverload;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.cel.checker.CelCheckerBuilder;
import dev.cel.common.types.ListType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompilerLibrary;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntimeBuilder;
import dev.cel.runtime.CelRuntimeLibrary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kubernetes' CEL regex library ({@code k8s.io/apiserver/pkg/cel/library/regex.go}): {@code find} and
 * {@code findAll} with RE2 syntax and Go's match semantics (leftmost-first; {@code findAll} skips an empty match right
 * after the previous match).
 */
final class RegexLibrary implements CelCompilerLibrary, CelRuntimeLibrary {

    /** Patterns are nearly always literals, so a small cache avoids compiling one per device. */
    private static final int MAX_CACHED_PATTERNS = 256;

    private final Map<String, Pattern> patterns = new ConcurrentHashMap<>();

    @Override
    public void setCheckerOptions(CelCheckerBuilder checker) {
        ListType strings = ListType.create(SimpleType.STRING);
        checker.addFunctionDeclarations(
                newFunctionDeclaration("find",
                        newMemberOverload("string_find_string", SimpleType.STRING, SimpleType.STRING,
                                SimpleType.STRING)),
                newFunctionDeclaration("findAll",
                        newMemberOverload("string_find_all_string", strings, SimpleType.STRING, SimpleType.STRING),
                        newMemberOverload("string_find_all_string_int", strings, SimpleType.STRING,
                                SimpleType.STRING, SimpleType.INT)));
    }

    @Override
    public void setRuntimeOptions(CelRuntimeBuilder runtime) {
        runtime.addFunctionBindings(
                CelFunctionBinding.from("string_find_string", String.class, String.class, this::find),
                CelFunctionBinding.from("string_find_all_string", String.class, String.class,
                        (text, regex) -> findAll(text, regex, -1)),
                CelFunctionBinding.from("string_find_all_string_int", List.of(String.class, String.class, Long.class),
                        args -> findAll((String) args[0], (String) args[1], (Long) args[2])));
    }

    /** Compiles with RE2 syntax; the message of a bad pattern is Go's {@code regexp} error. */
    static Pattern compile(String regex) throws PatternSyntaxException {
        return Pattern.compile(regex);
    }

    private Pattern pattern(String regex) {
        Pattern cached = patterns.get(regex);
        if (cached != null) {
            return cached;
        }
        Pattern compiled;
        try {
            compiled = compile(regex);
        } catch (PatternSyntaxException invalid) {
            throw new LibraryFunctionException("Illegal regex: " + invalid.getMessage());
        }
        if (patterns.size() >= MAX_CACHED_PATTERNS) {
            patterns.clear();
        }
        patterns.put(regex, compiled);
        return compiled;
    }

    private String find(String text, String regex) {
        Matcher matcher = pattern(regex).matcher(text);
        return matcher.find() ? matcher.group() : "";
    }

    private List<String> findAll(String text, String regex, long limit) {
        Matcher matcher = pattern(regex).matcher(text);
        List<String> matches = new ArrayList<>();
        int position = 0;
        int previousMatchEnd = -1;
        while ((limit < 0 || matches.size() < limit) && position <= text.length() && matcher.find(position)) {
            boolean empty = matcher.end() == position;
            boolean accept = !(empty && matcher.start() == previousMatchEnd);
            position = empty ? nextCharacter(text, position) : matcher.end();
            previousMatchEnd = matcher.end();
            if (accept) {
                matches.add(matcher.group());
            }
        }
        return matches;
    }

    private static int nextCharacter(String text, int position) {
        return position < text.length() ? position + Character.charCount(text.codePointAt(position)) : position + 1;
    }
}
