package io.kdra.framework.run;

import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which specs run, as ginkgo selects them: a spec runs if its full name matches one of the focus expressions (or there
 * are none), matches no skip expression, and its labels pass the label filter. Expressions match anywhere in the
 * name, as Go's {@code regexp.MatchString}.
 */
public record SpecSelection(List<Pattern> focus, List<Pattern> skip, LabelFilter labelFilter) {

    public static final SpecSelection ALL = new SpecSelection(List.of(), List.of(), LabelFilter.parse(""));

    public SpecSelection {
        focus = List.copyOf(focus);
        skip = List.copyOf(skip);
    }

    public boolean selects(String fullName, Collection<String> labels) {
        return (focus.isEmpty() || focus.stream().anyMatch(pattern -> pattern.matcher(fullName).find()))
                && skip.stream().noneMatch(pattern -> pattern.matcher(fullName).find())
                && labelFilter.test(labels);
    }
}
