package io.kdra.cluster.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.cluster.kubelet.server.ContainerStreams.PodContainer;
import io.kdra.plugin.cdi.Mount;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContainerPathsTest {

    private final ContainerPaths paths = ContainerPaths.of(List.of(
            new Mount("/host/data", "/data", null, List.of("bind")),
            new Mount("/host/metadata.json", "/data/run/metadata.json", null, List.of("ro", "bind"))));

    @Test
    void aMountedPathBecomesItsHostPath() {
        assertThat(paths.rewrite(List.of("cat", "/data/run/metadata.json", "/data/x", "/data")))
                .containsExactly("cat", "/host/metadata.json", "/host/data/x", "/host/data");
    }

    @Test
    void pathsInsideAShellScriptAreFoundToo() {
        assertThat(paths.rewrite(List.of("sh", "-c", "cat '/data/run/metadata.json' && ls /data;echo")))
                .containsExactly("sh", "-c", "cat '/host/metadata.json' && ls /host/data;echo");
    }

    @Test
    void onlyWholePathsAreReplaced() {
        assertThat(paths.rewrite(List.of("/database", "/other/data", "x/data", "/data.old", "/dataset/x")))
                .containsExactly("/database", "/other/data", "x/data", "/data.old", "/dataset/x");
    }

    @Test
    void withoutMountsTheCommandStaysAsItIs() {
        List<String> command = List.of("cat", "/data");
        assertThat(ContainerPaths.of(List.of()).rewrite(command)).isSameAs(command);
    }

    @Test
    void volumeMountsMapLikeCdiMounts() {
        ContainerConfig container = new ContainerConfig(new PodContainer("ns", "proxy", "proxy"), "uid", 0, "image",
                List.of(), Map.of(), null, List.of(), List.of(
                        new ContainerConfig.Mount("/cdi/", Path.of("/node-1/cdi")),
                        new ContainerConfig.Mount("/", Path.of("/node-1/host"))), null);
        assertThat(ContainerPaths.of(List.of(), container, Path.of("/unused"), false)
                .rewrite(List.of("sh", "-c", "base64 -d >'/cdi/x.tmp' && mv /cdi/x.tmp /cdi/x", "/etc/hosts")))
                .containsExactly("sh", "-c", "base64 -d >'/node-1/cdi/x.tmp' && mv /node-1/cdi/x.tmp /node-1/cdi/x",
                        "/etc/hosts");
    }
}
