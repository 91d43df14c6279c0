package io.kdra.plugin.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kdra.plugin.testing.TempDir;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LocalFileOperationsTest {

    private final TempDir dir = new TempDir();
    private final LocalFileOperations files = new LocalFileOperations(dir.resolve("cdi"));

    @AfterEach
    void tearDown() throws IOException {
        dir.close();
    }

    @Test
    void writeCreatesAndReplacesWholeFilesReadableByAll() throws IOException {
        files.write("driver-uid-req.json", bytes("{\"first\":1}"));
        files.write("driver-uid-req.json", bytes("{\"second\":2}"));

        assertThat(dir.resolve("cdi/driver-uid-req.json")).hasContent("{\"second\":2}");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("cdi/driver-uid-req.json"))))
                .isEqualTo("rw-r--r--");
        try (var listing = Files.list(dir.resolve("cdi"))) {
            assertThat(listing).as("no temporary files are left").hasSize(1);
        }
    }

    @Test
    void readersSeeTheOldOrTheNewContentButNeverAPart() throws Exception {
        byte[] first = new byte[512 * 1024];
        byte[] second = new byte[512 * 1024];
        Arrays.fill(first, (byte) 'a');
        Arrays.fill(second, (byte) 'b');
        files.write("spec.json", first);
        Path target = dir.resolve("cdi/spec.json");
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try {
            Future<?> writes = writer.submit(() -> {
                for (int i = 0; i < 40; i++) {
                    files.write("spec.json", i % 2 == 0 ? second : first);
                }
                return null;
            });
            int reads = 0;
            while (!writes.isDone() || reads < 20) {
                byte[] seen = Files.readAllBytes(target);
                assertThat(Arrays.equals(seen, first) || Arrays.equals(seen, second))
                        .as("read %d is one complete version (%d bytes)", reads, seen.length).isTrue();
                reads++;
            }
            writes.get(30, TimeUnit.SECONDS);
        } finally {
            writer.shutdownNow();
        }
    }

    @Test
    void removeIsIdempotent() throws IOException {
        files.write("spec.json", bytes("{}"));

        files.remove("spec.json");
        files.remove("spec.json");

        assertThat(dir.resolve("cdi/spec.json")).doesNotExist();
    }

    @Test
    void namesWithADirectoryPartAreRejected() {
        assertThatThrownBy(() -> files.write("../escape.json", bytes("{}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("\"../escape.json\" is not a plain file name");
        assertThatThrownBy(() -> files.remove(""))
                .hasMessage("\"\" is not a plain file name");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
