package io.kdra.framework;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a failed spec left behind, collected before its cleanups ran: the last step it announced and named sections
 * (the namespace's objects, its events, each driver's recent gRPC calls).
 *
 * @param lastStep the last {@link Framework#by} step, or {@code null} if the spec failed before its first one
 * @param sections section title → content, in the order they were collected
 */
public record FailureReport(String lastStep, Map<String, String> sections) {

    public FailureReport {
        sections = Collections.unmodifiableMap(new LinkedHashMap<>(sections));
    }

    /** The report as text: the step, then each non-empty section under its title. */
    public String render() {
        StringBuilder text = new StringBuilder("step: ").append(lastStep == null ? "(before the first step)" : lastStep)
                .append('\n');
        sections.forEach((title, content) -> {
            if (!content.isBlank()) {
                text.append("--- ").append(title).append('\n').append(content);
                if (!content.endsWith("\n")) {
                    text.append('\n');
                }
            }
        });
        return text.toString();
    }
}
