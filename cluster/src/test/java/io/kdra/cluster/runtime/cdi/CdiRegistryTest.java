package io.kdra.cluster.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kdra.plugin.cdi.DeviceNode;
import io.kdra.plugin.cdi.Mount;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiRegistryTest {

    @TempDir
    Path directory;

    private CdiRegistry registry() {
        return new CdiRegistry(directory);
    }

    private void write(String name, String content) throws IOException {
        Files.writeString(directory.resolve(name), content);
    }

    @Test
    void jsonSpecResolvesWithSpecEditsBeforeDeviceEdits() throws Exception {
        write("a.json", """
                {"cdiVersion":"0.3.0","kind":"test.example.com/test",
                 "containerEdits":{"env":["COMMON=spec","SHARED=spec"]},
                 "devices":[{"name":"dev-1","containerEdits":{"env":["ONE=1","SHARED=device"]}}]}
                """);

        CdiEdits edits = registry().resolve(List.of("test.example.com/test=dev-1"));

        assertThat(edits.devices()).containsExactly("test.example.com/test=dev-1");
        assertThat(edits.env()).containsExactly("COMMON=spec", "SHARED=spec", "ONE=1", "SHARED=device");
        assertThat(edits.applyEnv(Map.of())).containsEntry("SHARED", "device").containsEntry("COMMON", "spec")
                .containsEntry("ONE", "1");
    }

    @Test
    void yamlSpecResolves() throws Exception {
        write("b.yaml", """
                cdiVersion: 0.6.0
                kind: vendor.example/gpu
                annotations:
                  origin: test
                devices:
                - name: "0"
                  containerEdits:
                    env: ["GPU=0"]
                    deviceNodes:
                    - path: /dev/gpu0
                      type: c
                      major: 195
                    mounts:
                    - hostPath: /opt/lib
                      containerPath: /usr/lib/gpu
                      options: [ro, bind]
                """);

        CdiEdits edits = registry().resolve(List.of("vendor.example/gpu=0"));

        assertThat(edits.env()).containsExactly("GPU=0");
        assertThat(edits.deviceNodes()).extracting(DeviceNode::path).containsExactly("/dev/gpu0");
        assertThat(edits.deviceNodes().get(0).major()).isEqualTo(195L);
        assertThat(edits.mounts()).containsExactly(new Mount("/opt/lib", "/usr/lib/gpu", null, List.of("ro", "bind")));
    }

    @Test
    void devicesOfSeveralFilesMergeInRequestOrderWithEachSpecsEditsOnce() throws Exception {
        write("one.json", """
                {"cdiVersion":"0.5.0","kind":"one.example/a","containerEdits":{"env":["SPEC=one"],
                  "mounts":[{"hostPath":"/h/deep","containerPath":"/a/b/c"}]},
                 "devices":[{"name":"x","containerEdits":{"env":["X=1"],"deviceNodes":[{"path":"/dev/shared"}]}},
                            {"name":"y","containerEdits":{"env":["Y=1"],
                              "deviceNodes":[{"path":"/dev/shared","hostPath":"/dev/y"}]}}]}
                """);
        write("two.yaml", """
                cdiVersion: 0.3.0
                kind: two.example/b
                containerEdits:
                  env: [SPEC=two]
                devices:
                - name: z
                  containerEdits:
                    env: [Z=1]
                    mounts:
                    - {hostPath: /h/top, containerPath: /a}
                    hooks:
                    - {hookName: createContainer, path: /bin/true, args: [true]}
                """);

        CdiEdits edits = registry().resolve(List.of("one.example/a=x", "two.example/b=z", "one.example/a=y",
                "one.example/a=x"));

        assertThat(edits.devices()).containsExactly("one.example/a=x", "two.example/b=z", "one.example/a=y");
        assertThat(edits.env()).containsExactly("SPEC=one", "X=1", "SPEC=two", "Z=1", "Y=1");
        assertThat(edits.applyEnv(new LinkedHashMap<>(Map.of("SPEC", "pod")))).containsEntry("SPEC", "two");
        assertThat(edits.deviceNodes()).singleElement().extracting(DeviceNode::hostPath).isEqualTo("/dev/y");
        assertThat(edits.mounts()).extracting(Mount::containerPath).containsExactly("/a", "/a/b/c");
        assertThat(edits.hooks()).containsExactly(new Hook("createContainer", "/bin/true", List.of("true"), null,
                null));
        assertThat(new String(edits.toJson())).contains("\"devices\":[\"one.example/a=x\"", "\"hookName\"");
    }

    @Test
    void unresolvableDevicesAreAllNamed() throws Exception {
        write("a.json", """
                {"cdiVersion":"0.3.0","kind":"test.example.com/test","devices":[{"name":"there",
                 "containerEdits":{"env":["A=1"]}}]}
                """);

        assertThatThrownBy(() -> registry().resolve(List.of("test.example.com/test=missing",
                "test.example.com/test=there", "other.example/x=y")))
                .isInstanceOf(UnresolvableCdiDevicesException.class)
                .hasMessage("unresolvable CDI devices test.example.com/test=missing, other.example/x=y");
    }

    @Test
    void noDevicesNeedsNoDirectory() throws Exception {
        CdiRegistry registry = new CdiRegistry(directory.resolve("absent"));

        assertThat(registry.resolve(List.of())).isEqualTo(CdiEdits.NONE);
        assertThatThrownBy(() -> registry.resolve(List.of("a.example/b=c")))
                .hasMessage("unresolvable CDI devices a.example/b=c");
    }

    @Test
    void aMalformedFileIsReportedByNameAndTheOthersStayUsable() throws Exception {
        write("bad.json", "{\"cdiVersion\":\"0.3.0\",\"kind\":");
        write("good.json", """
                {"cdiVersion":"0.3.0","kind":"test.example.com/test","devices":[{"name":"ok",
                 "containerEdits":{"env":["OK=1"]}}]}
                """);
        write("ignored.txt", "not a spec");
        CdiRegistry registry = registry();

        assertThat(registry.resolve(List.of("test.example.com/test=ok")).env()).containsExactly("OK=1");
        assertThat(registry.errors()).containsOnlyKeys(directory.resolve("bad.json"));
        assertThat(registry.errors().get(directory.resolve("bad.json"))).singleElement().asString()
                .startsWith("failed to parse CDI Spec \"" + directory.resolve("bad.json") + "\"");
    }

    @Test
    void invalidSpecsAreRejectedWithTheProblem() throws Exception {
        write("unknown-field.json", """
                {"cdiVersion":"0.3.0","kind":"a.example/x","devices":[{"name":"d","containerEdits":{"env":["A=1"]}}],
                 "surprise":true}
                """);
        write("too-old.json", """
                {"cdiVersion":"0.3.0","kind":"b.example/x","devices":[{"name":"0","containerEdits":{"env":["A=1"]}}]}
                """);
        write("empty-edits.json", """
                {"cdiVersion":"0.3.0","kind":"c.example/x","devices":[{"name":"d","containerEdits":{}}]}
                """);
        write("bad-env.yaml", """
                cdiVersion: 0.3.0
                kind: d.example/x
                devices:
                - name: d
                  containerEdits: {env: ["=nothing"]}
                """);
        write("bad-version.json", """
                {"cdiVersion":"9.9.9","kind":"e.example/x","devices":[{"name":"d","containerEdits":{"env":["A=1"]}}]}
                """);
        write("bad-name.json", """
                {"cdiVersion":"0.5.0","kind":"f.example/x","devices":[{"name":"-d","containerEdits":{"env":["A=1"]}}]}
                """);
        CdiRegistry registry = registry();

        Map<Path, List<String>> errors = registry.refresh();

        assertThat(errors).hasSize(6);
        assertThat(errors.get(directory.resolve("unknown-field.json")).get(0)).endsWith("unknown field \"surprise\"");
        assertThat(errors.get(directory.resolve("too-old.json")).get(0))
                .endsWith("the spec version must be at least v0.5.0");
        assertThat(errors.get(directory.resolve("empty-edits.json")).get(0))
                .endsWith("failed add device \"d\": invalid device, empty device edits");
        assertThat(errors.get(directory.resolve("bad-env.yaml")).get(0))
                .endsWith("invalid environment variable \"=nothing\"");
        assertThat(errors.get(directory.resolve("bad-version.json")).get(0)).endsWith("invalid version \"9.9.9\"");
        assertThat(errors.get(directory.resolve("bad-name.json")).get(0)).contains("failed add device \"-d\"",
                "should start with a letter or digit");
        assertThatThrownBy(() -> registry.resolve(List.of("a.example/x=d")))
                .isInstanceOf(UnresolvableCdiDevicesException.class);
    }

    @Test
    void aDeviceDefinedTwiceIsAConflictAndUnresolvable() throws Exception {
        String spec = """
                {"cdiVersion":"0.3.0","kind":"test.example.com/test","devices":[
                  {"name":"twice","containerEdits":{"env":["T=%s"]}},
                  {"name":"only-%s","containerEdits":{"env":["O=1"]}}]}
                """;
        write("first.json", spec.formatted("1", "first"));
        write("second.json", spec.formatted("2", "second"));
        CdiRegistry registry = registry();

        assertThatThrownBy(() -> registry.resolve(List.of("test.example.com/test=twice")))
                .hasMessage("unresolvable CDI devices test.example.com/test=twice");
        assertThat(registry.errors()).containsOnlyKeys(directory.resolve("first.json"),
                directory.resolve("second.json"));
        assertThat(registry.errors().get(directory.resolve("first.json")).get(0))
                .startsWith("conflicting device \"test.example.com/test=twice\"");
        assertThat(registry.resolve(List.of("test.example.com/test=only-first", "test.example.com/test=only-second"))
                .env()).containsExactly("O=1", "O=1");
    }

    @Test
    void everyResolutionSeesFilesWrittenChangedOrRemovedSinceTheLast() throws Exception {
        CdiRegistry registry = registry();
        String id = "test.example.com/test=late";
        assertThatThrownBy(() -> registry.resolve(List.of(id))).isInstanceOf(UnresolvableCdiDevicesException.class);

        write("late.json", """
                {"cdiVersion":"0.3.0","kind":"test.example.com/test","devices":[{"name":"late",
                 "containerEdits":{"env":["V=1"]}}]}
                """);
        assertThat(registry.resolve(List.of(id)).env()).containsExactly("V=1");

        write("late.json", """
                {"cdiVersion":"0.3.0","kind":"test.example.com/test","devices":[{"name":"late",
                 "containerEdits":{"env":["V=changed"]}}]}
                """);
        assertThat(registry.resolve(List.of(id)).env()).containsExactly("V=changed");

        Files.delete(directory.resolve("late.json"));
        assertThatThrownBy(() -> registry.resolve(List.of(id))).isInstanceOf(UnresolvableCdiDevicesException.class);
        assertThat(registry.errors()).isEmpty();
    }
}
