package io.kdra.framework.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Writes a run's results as {@code junit.xml} (the JUnit XML that CI systems read, one {@code testcase} per spec,
 * named by its full name) and {@code report.html} (one page: the summary, failures first with their reports, then
 * every spec).
 */
public final class RunReports {

    public static final String JUNIT_FILE = "junit.xml";
    public static final String HTML_FILE = "report.html";

    private RunReports() {
    }

    /** Writes both files into the directory, creating it if needed. */
    public static void write(Path directory, String suiteName, RunResult result) throws IOException {
        Files.createDirectories(directory);
        Files.writeString(directory.resolve(JUNIT_FILE), junitXml(suiteName, result));
        Files.writeString(directory.resolve(HTML_FILE), html(suiteName, result));
    }

    static String junitXml(String suiteName, RunResult result) {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        xml.append("<testsuites tests=\"").append(result.specs().size()).append("\" failures=\"")
                .append(result.count(SpecResult.Status.FAILED)).append("\" skipped=\"")
                .append(result.count(SpecResult.Status.SKIPPED)).append("\" time=\"")
                .append(seconds(result.wallTime())).append("\">\n");
        xml.append("  <testsuite name=\"").append(escape(suiteName)).append("\" tests=\"")
                .append(result.specs().size()).append("\" failures=\"").append(result.count(SpecResult.Status.FAILED))
                .append("\" errors=\"0\" skipped=\"").append(result.count(SpecResult.Status.SKIPPED))
                .append("\" time=\"").append(seconds(result.wallTime())).append("\">\n");
        for (SpecResult spec : byName(result)) {
            xml.append("    <testcase name=\"").append(escape(spec.name())).append("\" classname=\"")
                    .append(escape(spec.specClass())).append("\" time=\"").append(seconds(spec.duration()))
                    .append('"');
            switch (spec.status()) {
                case PASSED -> xml.append("/>\n");
                case SKIPPED -> xml.append(">\n      <skipped message=\"").append(escape(spec.message()))
                        .append("\"/>\n    </testcase>\n");
                case FAILED -> xml.append(">\n      <failure message=\"").append(escape(spec.message()))
                        .append("\" type=\"failed\">").append(escape(spec.details()))
                        .append("</failure>\n    </testcase>\n");
            }
        }
        return xml.append("  </testsuite>\n</testsuites>\n").toString();
    }

    static String html(String suiteName, RunResult result) {
        StringBuilder html = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<title>").append(escape(suiteName)).append("</title><style>")
                .append("body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;width:100%}")
                .append("td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}")
                .append(".PASSED{color:#1a7f37}.FAILED{color:#cf222e;font-weight:bold}.SKIPPED{color:#777}")
                .append("pre{background:#f6f8fa;padding:8px;overflow-x:auto;white-space:pre-wrap}")
                .append("</style></head><body>\n<h1>").append(escape(suiteName)).append("</h1>\n<p>")
                .append(escape(result.summary())).append(" in ").append(seconds(result.wallTime()))
                .append(" s</p>\n");
        List<SpecResult> failed = byName(result).stream()
                .filter(spec -> spec.status() == SpecResult.Status.FAILED).toList();
        if (!failed.isEmpty()) {
            html.append("<h2>Failures</h2>\n");
            for (SpecResult spec : failed) {
                html.append("<h3>").append(escape(spec.name())).append("</h3>\n<p>").append(escape(spec.message()))
                        .append("</p>\n<pre>").append(escape(spec.details())).append("</pre>\n");
            }
        }
        html.append("<h2>Specs</h2>\n<table><tr><th>state</th><th>spec</th><th>seconds</th><th>note</th></tr>\n");
        for (SpecResult spec : byName(result)) {
            html.append("<tr><td class=\"").append(spec.status()).append("\">")
                    .append(spec.status().name().toLowerCase(Locale.ROOT)).append("</td><td>")
                    .append(escape(spec.name())).append("</td><td>").append(seconds(spec.duration()))
                    .append("</td><td>").append(escape(spec.status() == SpecResult.Status.PASSED ? ""
                            : spec.message())).append("</td></tr>\n");
        }
        return html.append("</table>\n</body></html>\n").toString();
    }

    private static List<SpecResult> byName(RunResult result) {
        return result.specs().stream().sorted(Comparator.comparing(SpecResult::name)).toList();
    }

    private static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.3f", duration.toNanos() / 1e9);
    }

    private static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '&' -> escaped.append("&amp;");
                case '"' -> escaped.append("&quot;");
                default -> {
                    // XML 1.0 allows no control characters but tab, newline and carriage return
                    if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') {
                        escaped.append(c);
                    }
                }
            }
        }
        return escaped.toString();
    }
}
