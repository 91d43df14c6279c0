package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kubectl tests refuse a kubectl too old for them with one clear message, as Debian's 1.20 would be. */
class KubectlVersionTest {

    @TempDir
    Path dir;

    @Test
    void theKubectlOnThePathIsNewEnough() {
        assertThatCode(() -> Kubectl.requireNewEnough("kubectl")).doesNotThrowAnyException();
    }

    @Test
    void debiansKubectlIsRefusedNamingItsVersionAndTheFix() throws Exception {
        Path old = fakeKubectl("{\"clientVersion\": {\"major\": \"1\", \"minor\": \"20\", \"gitVersion\": \"v1.20.2\"}}");

        assertThatThrownBy(() -> Kubectl.requireNewEnough(old.toString())).isInstanceOf(AssertionError.class)
                .hasMessage(old + " is kubectl v1.20.2, older than the 1.28 the tests need; run .ci/ensure-kubectl (it "
                        + "prints a directory with a new enough kubectl to put first on the PATH) or install kubectl "
                        + "1.28 or newer");
    }

    @Test
    void aMissingKubectlIsNamed() {
        assertThatThrownBy(() -> Kubectl.requireNewEnough(dir.resolve("kubectl").toString()))
                .isInstanceOf(AssertionError.class).hasMessageContaining("does not run")
                .hasMessageContaining("run .ci/ensure-kubectl");
    }

    private Path fakeKubectl(String versionJson) throws Exception {
        Path script = dir.resolve("kubectl");
        Files.writeString(script, "#!/bin/sh\ncat <<'END'\n" + versionJson + "\nEND\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }
}
