package io.kdra.framework;

import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;

/**
 * Full names and labels of specs, as ginkgo prints them: the display names of the enclosing classes, outermost first,
 * then the method's, joined by spaces; the labels are the JUnit tags of the classes and the method.
 */
public final class SpecNames {

    private SpecNames() {
    }

    public static String fullName(Class<?> specClass, Method spec) {
        Deque<String> parts = new ArrayDeque<>();
        parts.push(displayName(spec.getAnnotation(DisplayName.class), spec.getName()));
        for (Class<?> type = specClass; type != null; type = type.getEnclosingClass()) {
            parts.push(displayName(type.getAnnotation(DisplayName.class), type.getSimpleName()));
        }
        return String.join(" ", parts);
    }

    /** The tags of the method and its classes, outermost class first. */
    public static Set<String> labels(Class<?> specClass, Method spec) {
        Deque<Class<?>> classes = new ArrayDeque<>();
        for (Class<?> type = specClass; type != null; type = type.getEnclosingClass()) {
            classes.push(type);
        }
        Set<String> labels = new LinkedHashSet<>();
        classes.forEach(type -> addTags(labels, type.getAnnotationsByType(Tag.class)));
        addTags(labels, spec.getAnnotationsByType(Tag.class));
        return labels;
    }

    private static void addTags(Set<String> labels, Tag[] tags) {
        for (Tag tag : tags) {
            labels.add(tag.value());
        }
    }

    private static String displayName(DisplayName name, String fallback) {
        return name == null ? fallback : name.value();
    }
}
