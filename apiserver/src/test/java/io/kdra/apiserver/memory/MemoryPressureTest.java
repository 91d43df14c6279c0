package io.kdra.apiserver.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Large objects rewritten under a small heap, each run in a JVM of its own: with the history bounded in bytes the
 * server stays healthy and releases the old states; with an unbounded history it runs out of memory and, as the
 * {@code kdra} launcher runs it, exits with a message instead of hanging.
 */
class MemoryPressureTest {

    private static final String HEAP = "-Xmx160m";
    private static final int UPDATES = 300;
    private static final int KIB = 1024;

    @TempDir
    Path dir;

    @Test
    void rewritingAOneMebibyteConfigMapThreeHundredTimesKeepsTheServerHealthy() throws Exception {
        Run run = run(List.of(HEAP), "default");

        assertThat(run.exitCode).as(run.output).isZero();
        Matcher result = Pattern.compile("RESULT failures=(\\d+) deleted=(\\d+) readyz=(\\d+) historyBytes=(\\d+) "
                + "usedHeap=(\\d+) maxHeap=(\\d+)").matcher(run.output);
        assertThat(result.find()).as(run.output).isTrue();
        assertThat(result.group(1)).isEqualTo("0");
        assertThat(result.group(2)).isEqualTo("200");
        assertThat(result.group(3)).isEqualTo("200");
        long maxHeap = Long.parseLong(result.group(6));
        // the default budget is an eighth of the heap; one event over it may stay (the newest always does)
        assertThat(Long.parseLong(result.group(4))).isLessThanOrEqualTo(maxHeap / 8 + (KIB + 1) * 1024L);
        assertThat(Long.parseLong(result.group(5))).isLessThan(maxHeap / 2);
    }

    @Test
    void runningOutOfMemoryEndsTheProcessWithAMessage() throws Exception {
        Run run = run(List.of(HEAP, "-XX:+ExitOnOutOfMemoryError"), Long.toString(Long.MAX_VALUE));

        assertThat(run.exitCode).as(run.output).isNotZero();
        assertThat(run.output).contains("Terminating due to java.lang.OutOfMemoryError").doesNotContain("RESULT");
    }

    private Run run(List<String> jvmOptions, String historyBytes) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), LargeObjectWriter.class.getName(),
                historyBytes, Integer.toString(UPDATES), Integer.toString(KIB)));
        Path log = dir.resolve("output.txt");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("the server JVM neither finished nor exited within 5 minutes:\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
        return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    private record Run(int exitCode, String output) {}
}
