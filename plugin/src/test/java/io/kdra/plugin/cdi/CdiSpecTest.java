package io.kdra.plugin.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CdiSpecTest {

    @Test
    void serializesLikeTheUpstreamTestDriver() {
        CdiSpec spec = CdiSpec.of("0.3.0", "test.example.com/test", List.of(new CdiDevice("claim-1234-gpu",
                ContainerEdits.ofEnv(List.of("admin_x=y", "claim_c_gpu=true", "user_a=b")))));

        assertThat(new String(spec.toJson(), StandardCharsets.UTF_8)).isEqualTo(
                "{\"cdiVersion\":\"0.3.0\",\"kind\":\"test.example.com/test\",\"devices\":[{\"name\":\"claim-1234-gpu\","
                        + "\"containerEdits\":{\"env\":[\"admin_x=y\",\"claim_c_gpu=true\",\"user_a=b\"]}}]}");
        assertThat(spec.deviceId("claim-1234-gpu").toString()).isEqualTo("test.example.com/test=claim-1234-gpu");
    }

    @Test
    void writesDeviceNodesMountsAndTopLevelEditsAndReadsThemBack() {
        CdiSpec spec = new CdiSpec("0.5.0", "vendor.com/gpu",
                List.of(new CdiDevice("0", new ContainerEdits(List.of("GPU=0"),
                        List.of(new DeviceNode("/dev/gpu0", "/dev/nvidia0", "c", 195L, 0L, null, "rw", null, null)),
                        List.of(new Mount("/opt/lib", "/usr/lib/gpu", "bind", List.of("ro", "bind")))))),
                ContainerEdits.ofEnv(List.of("COMMON=1")));

        String json = new String(spec.toJson(), StandardCharsets.UTF_8);

        assertThat(json).isEqualTo("{\"cdiVersion\":\"0.5.0\",\"kind\":\"vendor.com/gpu\",\"devices\":[{\"name\":\"0\","
                + "\"containerEdits\":{\"env\":[\"GPU=0\"],\"deviceNodes\":[{\"path\":\"/dev/gpu0\","
                + "\"hostPath\":\"/dev/nvidia0\",\"type\":\"c\",\"major\":195,\"minor\":0,\"permissions\":\"rw\"}],"
                + "\"mounts\":[{\"hostPath\":\"/opt/lib\",\"containerPath\":\"/usr/lib/gpu\",\"type\":\"bind\","
                + "\"options\":[\"ro\",\"bind\"]}]}}],\"containerEdits\":{\"env\":[\"COMMON=1\"]}}");
        assertThat(CdiSpec.fromJson(spec.toJson())).isEqualTo(spec);
    }

    @Test
    void readingIgnoresFieldsTheModelDoesNotKnow() {
        CdiSpec spec = CdiSpec.fromJson(("{\"cdiVersion\":\"0.6.0\",\"kind\":\"v.com/c\",\"annotations\":{\"a\":\"b\"},"
                + "\"devices\":[{\"name\":\"d\",\"containerEdits\":{\"env\":[\"A=1\"],\"hooks\":[]}}]}")
                .getBytes(StandardCharsets.UTF_8));

        assertThat(spec.devices()).containsExactly(new CdiDevice("d", ContainerEdits.ofEnv(List.of("A=1"))));
    }

    @Test
    void invalidSpecsAreRejectedWithTheReason() {
        ContainerEdits env = ContainerEdits.ofEnv(List.of("A=1"));
        assertThatThrownBy(() -> CdiSpec.of("", "v.com/c", List.of(new CdiDevice("d", env))))
                .hasMessage("CDI spec for kind \"v.com/c\" has no cdiVersion");
        assertThatThrownBy(() -> CdiSpec.of("0.3.0", "nokind", List.of(new CdiDevice("d", env))))
                .hasMessage("invalid CDI kind \"nokind\": must be <vendor>/<class>");
        assertThatThrownBy(() -> CdiSpec.of("0.3.0", "1v.com/c", List.of(new CdiDevice("d", env))))
                .hasMessage("invalid CDI kind \"1v.com/c\": invalid vendor. \"1v.com\", should start with letter");
        assertThatThrownBy(() -> CdiSpec.of("0.3.0", "v.com/c", List.of()))
                .hasMessage("CDI spec for kind \"v.com/c\" has no devices");
        assertThatThrownBy(() -> CdiSpec.of("0.3.0", "v.com/c", List.of(new CdiDevice("d", env),
                new CdiDevice("d", env))))
                .hasMessage("CDI spec for kind \"v.com/c\" has device \"d\" twice");
        assertThatThrownBy(() -> new CdiDevice("d", ContainerEdits.ofEnv(List.of())))
                .hasMessage("CDI device \"d\" has no container edits");
        assertThatThrownBy(() -> new CdiDevice("bad name", env))
                .hasMessage("CDI device \"bad name\": invalid character ' ' in device name \"bad name\"");
        assertThatThrownBy(() -> ContainerEdits.ofEnv(List.of("NOVALUE")))
                .hasMessage("CDI env entry \"NOVALUE\" is not of the form NAME=value");
        assertThatThrownBy(() -> DeviceNode.of("dev/gpu"))
                .hasMessage("CDI device node path \"dev/gpu\" must be absolute");
        assertThatThrownBy(() -> new Mount("", "/x", null, null))
                .hasMessage("CDI mount needs hostPath and containerPath, got \"\" -> \"/x\"");
        assertThatThrownBy(() -> CdiSpec.fromJson("{\"cdiVersion\":".getBytes(StandardCharsets.UTF_8)))
                .hasMessageStartingWith("invalid CDI spec: ");
        assertThatThrownBy(() -> CdiSpec.of("0.3.0", "v.com/c", List.of(new CdiDevice("d", env))).deviceId("x"))
                .hasMessage("CDI spec for kind \"v.com/c\" has no device \"x\"");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "vendor.com/class=dev-0 | vendor.com | class | dev-0",
        "a/b=c | a | b | c",
        "test.example.com/test=claim-12ab-req:1 | test.example.com | test | claim-12ab-req:1",
        "v_1/c-2=0 | v_1 | c-2 | 0",
    })
    void parsesQualifiedDeviceIds(String id, String vendor, String deviceClass, String name) {
        assertThat(CdiDeviceId.parse(id)).isEqualTo(new CdiDeviceId(vendor, deviceClass, name));
        assertThat(CdiDeviceId.parse(id).toString()).isEqualTo(id);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "dev0 | unqualified device \"dev0\", missing vendor",
        "/dev/gpu | unqualified device \"/dev/gpu\", missing vendor",
        "vendor.com/class= | unqualified device \"vendor.com/class=\", missing vendor",
        "vendor.com=dev | unqualified device \"vendor.com=dev\", missing vendor",
        "vendor.com/=dev | unqualified device \"vendor.com/=dev\", missing class",
        "1vendor/class=dev | invalid device \"1vendor/class=dev\": invalid vendor. \"1vendor\", should start with letter",
        "vendor-/class=dev | invalid device \"vendor-/class=dev\": invalid vendor. \"vendor-\", should end with a letter or digit",
        "vendor/cl@ss=dev | invalid device \"vendor/cl@ss=dev\": invalid class. invalid character '@' in name \"cl@ss\"",
        "vendor/class=-dev | invalid device \"vendor/class=-dev\": invalid name \"-dev\", should start with a letter or digit",
        "vendor/class=dev. | invalid device \"vendor/class=dev.\": invalid name \"dev.\", should end with a letter or digit",
        "vendor/class=d/v | invalid device \"vendor/class=d/v\": invalid character '/' in device name \"d/v\"",
    })
    void rejectsMalformedDeviceIdsNamingTheProblem(String id, String message) {
        assertThatThrownBy(() -> CdiDeviceId.parse(id))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }
}
