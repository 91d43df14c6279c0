package io.kdra.plugin.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kdra.plugin.testing.TempDir;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
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
