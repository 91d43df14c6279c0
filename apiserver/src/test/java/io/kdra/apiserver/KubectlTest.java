package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Black-box tests: the real kubectl against the server, with the kubeconfig the server writes. */
class KubectlTest {

    private static final String CLAIM = """
            apiVersion: resource.k8s.io/v1
            kind: ResourceClaim
            metadata:
              name: claim-1
            spec:
              devices:
                requests:
                - name: gpu
                  exactly:
                    deviceClassName: gpu.example.com
            """;
    private static final String SLICE = """
            apiVersion: resource.k8s.io/v1
            kind: ResourceSlice
            metadata:
              name: slice-1
            spec:
              driver: gpu.example.com
              nodeName: node-1
              pool:
                name: node-1
                generation: 1
                resourceSliceCount: 1
              devices:
              - name: gpu-0
            """;
    private static final String POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: pod-1
              labels:
                app: demo
            spec:
              containers:
              - name: main
                image: busybox:%s
              resourceClaims:
              - name: gpu
                resourceClaimName: claim-1
            """;

    private static final String CONFIG_MAP = """
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: %s
            data:
              k: v
            """;

    private static final String DEVICE_CLASS = """
            apiVersion: resource.k8s.io/v1
            kind: DeviceClass
            metadata:
              name: gpu.example.com
            spec:
              selectors:
              - cel:
                  expression: device.driver == "gpu.example.com"
            """;

    private static final String APPLIED_CLAIM = """
            apiVersion: resource.k8s.io/v1beta1
            kind: ResourceClaim
            metadata:
              name: applied
              labels:
                round: "%s"
            spec:
              devices:
                requests:
                - name: gpu
                  deviceClassName: gpu.example.com
            """;

    /** A status as the kubelet writes it for a running, ready pod whose container restarted twice. */
    private static final String RUNNING = """
            {"status":{"phase":"Running","podIP":"10.0.0.7","podIPs":[{"ip":"10.0.0.7"},{"ip":"fd00::7"}],
             "conditions":[{"type":"Ready","status":"True"}],
             "containerStatuses":[{"name":"main","image":"busybox:1","imageID":"","ready":true,"restartCount":2,
               "lastState":{"terminated":{"exitCode":1,"finishedAt":"2020-01-01T00:00:00Z"}},
               "state":{"running":{"startedAt":"2026-01-01T00:00:00Z"}}}]}}""";

    @TempDir
    static Path dir;
    private static ServerFixture fixture;
    private static Kubectl kubectl;

    @BeforeAll
    static void start() throws IOException {
        // kubectl sends its bearer token only over https
        fixture = new ServerFixture(ServerFixture.EVERY_DRA_FIELD.withTls(true));
        kubectl = new Kubectl(fixture.server.writeKubeconfig(dir.resolve("kubeconfig")));
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void apiResourcesListsTheDraKinds() {
        String out = kubectl("api-resources", "--api-group=resource.k8s.io", "-o", "name");
        assertThat(out.lines()).contains("deviceclasses.resource.k8s.io", "resourceclaims.resource.k8s.io",
                "resourceclaimtemplates.resource.k8s.io", "resourceslices.resource.k8s.io",
                "devicetaintrules.resource.k8s.io");
    }

    @Test
    void createGetDescribeLabelPatchDeleteAClaim() throws IOException {
        assertThat(kubectl("create", "-f", file("claim.yaml", CLAIM))).contains("resourceclaim.resource.k8s.io/claim-1 created");
        assertThat(kubectl("get", "resourceclaims", "-o", "jsonpath={.items[*].metadata.name}")).isEqualTo("claim-1");
        assertThat(kubectl("describe", "resourceclaim", "claim-1")).contains("Name:", "claim-1", "gpu.example.com");
        assertThat(kubectl("label", "resourceclaim", "claim-1", "team=a")).contains("labeled");
        assertThat(kubectl("get", "resourceclaims", "-l", "team=a", "-o", "name"))
                .isEqualTo("resourceclaim.resource.k8s.io/claim-1");
        kubectl("patch", "resourceclaim", "claim-1", "--type=merge", "-p", "{\"metadata\":{\"labels\":{\"m\":\"1\"}}}");
        kubectl("patch", "resourceclaim", "claim-1", "--type=json",
                "-p", "[{\"op\":\"add\",\"path\":\"/metadata/labels/j\",\"value\":\"2\"}]");
        kubectl("patch", "resourceclaim", "claim-1", "--type=strategic", "-p", "{\"metadata\":{\"labels\":{\"s\":\"3\"}}}");
        assertThat(kubectl("get", "resourceclaim", "claim-1", "-o", "jsonpath={.metadata.labels}"))
                .contains("\"m\":\"1\"", "\"j\":\"2\"", "\"s\":\"3\"", "\"team\":\"a\"");
        assertThat(kubectl("delete", "resourceclaim", "claim-1")).contains("deleted");
    }

    @Test
    void applyClientSideTwiceAndServerSide() throws IOException {
        Path pod = file("pod.yaml", POD.formatted("1"));
        assertThat(kubectl("apply", "-f", pod)).contains("pod/pod-1 created");
        assertThat(kubectl("apply", "-f", pod)).contains("pod/pod-1 unchanged");
        assertThat(kubectl("apply", "-f", file("pod2.yaml", POD.formatted("2")))).contains("pod/pod-1 configured");
        assertThat(kubectl("get", "pod", "pod-1", "-o", "jsonpath={.spec.containers[*].image}")).isEqualTo("busybox:2");
        assertThat(kubectl("describe", "pod", "pod-1")).contains("busybox:2");

        Path slice = file("slice.yaml", SLICE);
        assertThat(kubectl("apply", "--server-side", "-f", slice)).contains("resourceslice.resource.k8s.io/slice-1 serverside-applied");
        assertThat(kubectl("apply", "-f", file("slice2.yaml", SLICE.replace("gpu-0", "gpu-1"))))
                .contains("configured");
        assertThat(kubectl("get", "resourceslice", "slice-1", "-o", "jsonpath={.spec.devices[*].name}"))
                .isEqualTo("gpu-1");
        kubectl("delete", "-f", slice);
        kubectl("delete", "pod", "pod-1");
    }

    @Test
    void serverSideApplyTakesOverAClientSideApply() throws IOException {
        String ns = fixture.namespace();
        Path manifest = file("upgraded.yaml", CONFIG_MAP.formatted("upgraded"));
        kubectl("-n", ns, "apply", "-f", manifest);

        assertThat(kubectl("-n", ns, "apply", "--server-side", "-f", manifest))
                .isEqualTo("configmap/upgraded serverside-applied");
        Path changed = file("upgraded2.yaml", CONFIG_MAP.formatted("upgraded").replace("k: v", "k: v2"));
        assertThat(kubectl("-n", ns, "apply", "--server-side", "-f", changed))
                .isEqualTo("configmap/upgraded serverside-applied");

        var configMap = fixture.client.configMaps().inNamespace(ns).withName("upgraded").get();
        assertThat(configMap.getData()).containsEntry("k", "v2");
        assertThat(configMap.getMetadata().getManagedFields())
                .extracting(entry -> entry.getManager() + "/" + entry.getOperation())
                .containsExactly("kubectl/Apply", "kubectl-last-applied/Apply");
        assertThat(configMap.getMetadata().getAnnotations().get("kubectl.kubernetes.io/last-applied-configuration"))
                .contains("\"k\":\"v2\"");
    }

    @Test
    void serverSideApplyAfterClientSideApplyConflictsWhenTheValueChangedSince() throws IOException {
        String ns = fixture.namespace();
        kubectl("-n", ns, "apply", "-f", file("drifted.yaml", CONFIG_MAP.formatted("drifted")));
        kubectl("-n", ns, "patch", "configmap", "drifted", "--type=merge", "-p", "{\"data\":{\"k\":\"edited\"}}");

        assertThat(kubectlFails("-n", ns, "apply", "--server-side", "-f",
                file("drifted2.yaml", CONFIG_MAP.formatted("drifted").replace("k: v", "k: v2"))))
                .contains("conflict with \"kubectl-patch\"");
    }

    @Test
    void waitAndWatch() throws Exception {
        kubectl("create", "-f", file("waited.yaml", CONFIG_MAP.formatted("waited")));
        assertThat(kubectl("wait", "--for=jsonpath={.data.k}=v", "configmap/waited", "--timeout=30s"))
                .contains("condition met");
        Process watch = start("get", "configmaps", "-w", "-o", "name");
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(watch.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(lines.readLine()).isEqualTo("configmap/waited");
            kubectl("create", "-f", file("watched.yaml", CONFIG_MAP.formatted("watched")));
            String next = lines.readLine();
            while (next != null && !next.equals("configmap/watched")) {
                next = lines.readLine();
            }
            assertThat(next).isEqualTo("configmap/watched");
        } finally {
            watch.destroy();
        }
        Process waiter = start("wait", "--for=delete", "configmap/waited", "--timeout=60s");
        kubectl("delete", "configmap", "waited");
        assertThat(waiter.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(waiter.exitValue()).isZero();
    }

    @Test
    void deviceClassCreateApplyLabelPatchDelete() throws IOException {
        Path deviceClass = file("class.yaml", DEVICE_CLASS);
        assertThat(kubectl("apply", "-f", deviceClass)).isEqualTo("deviceclass.resource.k8s.io/gpu.example.com created");
        assertThat(kubectl("apply", "-f", deviceClass)).isEqualTo("deviceclass.resource.k8s.io/gpu.example.com unchanged");
        assertThat(kubectl("apply", "-f", file("class2.yaml", DEVICE_CLASS.replace("device.driver ==",
                "device.driver !=")))).isEqualTo("deviceclass.resource.k8s.io/gpu.example.com configured");
        kubectl("label", "deviceclass", "gpu.example.com", "tier=gold");
        kubectl("patch", "deviceclass", "gpu.example.com", "--type=json", "-p",
                "[{\"op\":\"add\",\"path\":\"/spec/selectors/-\",\"value\":{\"cel\":{\"expression\":\"true\"}}}]");
        kubectl("patch", "deviceclass", "gpu.example.com", "--type=merge", "-p",
                "{\"spec\":{\"extendedResourceName\":\"example.com/gpu\"}}");
        assertThat(kubectl("get", "deviceclass", "gpu.example.com", "-o",
                "jsonpath={.metadata.labels.tier} {.spec.selectors[*].cel.expression} {.spec.extendedResourceName}"))
                .isEqualTo("gold device.driver != \"gpu.example.com\" true example.com/gpu");
        assertThat(kubectl("get", "deviceclasses.v1beta1.resource.k8s.io", "-o", "jsonpath={.items[*].apiVersion}"))
                .isEqualTo("resource.k8s.io/v1beta1");
        assertThat(kubectl("delete", "deviceclass", "gpu.example.com"))
                .isEqualTo("deviceclass.resource.k8s.io \"gpu.example.com\" deleted");
    }

    @Test
    void claimInV1beta1WithServerSideApplyWaitAndVersionedGets() throws Exception {
        String ns = fixture.namespace();
        assertThat(kubectl("-n", ns, "apply", "--server-side", "-f", file("applied.yaml", APPLIED_CLAIM.formatted("1"))))
                .isEqualTo("resourceclaim.resource.k8s.io/applied serverside-applied");
        assertThat(kubectl("-n", ns, "apply", "--server-side", "-f", file("applied2.yaml", APPLIED_CLAIM.formatted("2"))))
                .isEqualTo("resourceclaim.resource.k8s.io/applied serverside-applied");
        assertThat(kubectl("-n", ns, "wait", "--for=jsonpath={.spec.devices.requests[0].exactly.allocationMode}=ExactCount",
                "resourceclaim/applied", "--timeout=30s")).contains("condition met");
        assertThat(kubectl("-n", ns, "get", "resourceclaims.v1beta1.resource.k8s.io", "applied", "-o",
                "jsonpath={.apiVersion} {.metadata.labels.round} {.spec.devices.requests[0].deviceClassName} "
                        + "{.spec.devices.requests[0].count}"))
                .isEqualTo("resource.k8s.io/v1beta1 2 gpu.example.com 1");
        assertThat(kubectl("-n", ns, "get", "resourceclaims.v1beta2.resource.k8s.io", "-o", "name"))
                .isEqualTo("resourceclaim.resource.k8s.io/applied");

        Process waiter = start("-n", ns, "wait", "--for=jsonpath={.status.allocation.devices.results[0].device}=gpu-0",
                "resourceclaim/applied", "--timeout=60s");
        kubectl("-n", ns, "patch", "resourceclaim", "applied", "--subresource=status", "--type=merge", "-p", """
                {"status":{"allocation":{"devices":{"results":[
                  {"request":"gpu","driver":"gpu.example.com","pool":"node-1","device":"gpu-0"}]}}}}""");
        assertThat(waiter.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(waiter.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .contains("condition met");

        String immutable = kubectlFails("-n", ns, "patch", "resourceclaim", "applied", "--type=merge", "-p",
                "{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"other\",\"exactly\":"
                        + "{\"deviceClassName\":\"gpu.example.com\"}}]}}}");
        assertThat(immutable).startsWith("The ResourceClaim \"applied\" is invalid: spec: Invalid value: ")
                .endsWith(": field is immutable");
        assertThat(kubectl("-n", ns, "delete", "resourceclaims.v1beta1.resource.k8s.io", "applied")).contains("deleted");
    }

    @Test
    void deviceTaintRuleInV1alpha3V1beta2AndV1() throws IOException {
        Path rule = file("rule.yaml", """
                apiVersion: resource.k8s.io/v1alpha3
                kind: DeviceTaintRule
                metadata:
                  name: maintenance
                spec:
                  deviceSelector:
                    driver: gpu.example.com
                  taint:
                    key: example.com/maintenance
                    effect: NoSchedule
                """);
        assertThat(kubectl("apply", "-f", rule)).isEqualTo("devicetaintrule.resource.k8s.io/maintenance created");
        assertThat(kubectl("apply", "-f", rule)).isEqualTo("devicetaintrule.resource.k8s.io/maintenance unchanged");
        assertThat(kubectl("get", "devicetaintrules", "maintenance", "-o", "jsonpath={.apiVersion}"))
                .isEqualTo("resource.k8s.io/v1");
        assertThat(kubectl("get", "devicetaintrules.v1beta2.resource.k8s.io", "maintenance", "-o",
                "jsonpath={.apiVersion}")).isEqualTo("resource.k8s.io/v1beta2");
        assertThat(kubectl("get", "devicetaintrules")).matches("(?s)NAME +AGE\nmaintenance +\\d+s");
        assertThat(kubectl("patch", "devicetaintrule", "maintenance", "--subresource=status", "--type=merge", "-p",
                "{\"status\":{\"conditions\":[{\"type\":\"EvictionInProgress\",\"status\":\"False\","
                        + "\"reason\":\"Done\",\"message\":\"\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}}"))
                .contains("patched");
        assertThat(kubectl("get", "devicetaintrules.v1alpha3.resource.k8s.io", "maintenance", "-o",
                "jsonpath={.apiVersion} {.spec.taint.effect}")).isEqualTo("resource.k8s.io/v1alpha3 NoSchedule");
        assertThat(kubectl("get", "devicetaintrules", "maintenance", "-o", "jsonpath={.spec.taint.timeAdded}"))
                .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z");
        assertThat(kubectl("delete", "-f", rule)).isEqualTo("devicetaintrule.resource.k8s.io \"maintenance\" deleted");
    }

    @Test
    void invalidClaimIsRejectedWithFieldPaths() throws IOException {
        String out = kubectlFails("create", "-f", file("bad.yaml", CLAIM.replace("name: gpu", "name: Bad_Request")
                .replace("claim-1", "bad-claim")));
        assertThat(out).startsWith("The ResourceClaim \"bad-claim\" is invalid: "
                + "spec.devices.requests[0].name: Invalid value: \"Bad_Request\": a lowercase RFC 1123 label must");
    }

    @Test
    void aMisspelledNestedFieldFailsApplyUnlessValidationIsOff() throws IOException {
        Path typo = file("typo.yaml", CLAIM.replace("claim-1", "typo").replace("deviceClassName", "deviceClasName"));

        assertThat(kubectlFails("apply", "-f", typo)).contains("ResourceClaim in version \"v1\" cannot be handled as "
                + "a ResourceClaim: strict decoding error: unknown field \"spec.devices.requests[0].exactly."
                + "deviceClasName\"");
        assertThat(kubectlFails("apply", "--validate=false", "-f", typo))
                .contains("spec.devices.requests[0].exactly.deviceClassName: Required value");
    }

    @Test
    void podLabelPatchWaitDelete() throws IOException {
        kubectl("create", "-f", file("pod-w.yaml", POD.formatted("1").replace("pod-1", "pod-w")));
        kubectl("label", "pod", "pod-w", "stage=test");
        kubectl("patch", "pod", "pod-w", "--type=strategic", "-p",
                "{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"busybox:3\"}]}}");
        assertThat(kubectl("wait", "--for=jsonpath={.status.phase}=Pending", "pod/pod-w", "--timeout=30s"))
                .contains("condition met");
        assertThat(kubectl("get", "pods", "-l", "stage=test", "-o",
                "jsonpath={.items[0].spec.containers[0].image} {.items[0].spec.resourceClaims[0].resourceClaimName}"))
                .isEqualTo("busybox:3 claim-1");
        // kubectl 1.35 adds the namespace: pod "pod-w" deleted from default namespace
        assertThat(kubectl("delete", "pod", "pod-w", "--wait=true"))
                .matches("pod \"pod-w\" deleted( from default namespace)?");
    }

    @Test
    void getPrintsTheServersColumns() throws Exception {
        String ns = fixture.namespace();
        kubectl("-n", ns, "create", "-f", file("table-claim.yaml", CLAIM));
        kubectl("-n", ns, "create", "-f", file("table-pod.yaml", POD.formatted("1")));
        kubectl("create", "-f", file("table-slice.yaml", SLICE.replace("slice-1", "table-slice")));

        assertThat(kubectl("-n", ns, "get", "pods").lines().toList()).satisfiesExactly(
                header -> assertThat(header).matches("NAME +READY +STATUS +RESTARTS +AGE"),
                row -> assertThat(row).matches("pod-1 +0/1 +Pending +0 +\\d+s"));
        assertThat(kubectl("-n", ns, "get", "resourceclaims.v1beta1.resource.k8s.io").lines().toList())
                .satisfiesExactly(header -> assertThat(header).matches("NAME +STATE +AGE"),
                        row -> assertThat(row).matches("claim-1 +pending +\\d+s"));
        assertThat(kubectl("get", "resourceslice", "table-slice").lines().toList()).satisfiesExactly(
                header -> assertThat(header).matches("NAME +NODE +DRIVER +POOL +AGE"),
                row -> assertThat(row).matches("table-slice +node-1 +gpu.example.com +node-1 +\\d+s"));
        assertThat(kubectl("get", "namespace", ns, "--show-labels")).contains("Active", "kubernetes.io/metadata.name="
                + ns);

        Process watch = start("-n", ns, "get", "resourceclaims", "-w");
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(watch.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(lines.readLine()).matches("NAME +STATE +AGE");
            assertThat(lines.readLine()).matches("claim-1 +pending +\\d+s");
            kubectl("-n", ns, "patch", "resourceclaim", "claim-1", "--subresource=status", "--type=merge", "-p", """
                    {"status":{"allocation":{"devices":{"results":[
                      {"request":"gpu","driver":"gpu.example.com","pool":"node-1","device":"gpu-0"}]}}}}""");
            assertThat(lines.readLine()).matches("claim-1 +allocated +\\d+s");
        } finally {
            watch.destroy();
        }
        kubectl("delete", "resourceslice", "table-slice");
    }

    @Test
    void serverSideApplyOfAPodTakesOwnershipAndReportsConflictsWithAnotherManager() throws IOException {
        String ns = fixture.namespace();
        assertThat(kubectl("-n", ns, "apply", "--server-side", "-f", file("ssa-pod.yaml", POD.formatted("1"))))
                .isEqualTo("pod/pod-1 serverside-applied");
        assertThat(kubectl("-n", ns, "apply", "--server-side", "-f", file("ssa-pod2.yaml", POD.formatted("2"))))
                .isEqualTo("pod/pod-1 serverside-applied");
        assertThat(kubectl("-n", ns, "get", "pod", "pod-1", "-o", "jsonpath={.spec.containers[0].image}"))
                .isEqualTo("busybox:2");

        Path otherImage = file("ssa-pod3.yaml", POD.formatted("3"));
        assertThat(kubectlFails("-n", ns, "apply", "--server-side", "--field-manager=other", "-f", otherImage))
                .startsWith("error: Apply failed with 1 conflict: conflict with \"kubectl\" using v1: "
                        + ".spec.containers[name=\"main\"].image");
        assertThat(kubectl("-n", ns, "get", "pod", "pod-1", "-o", "jsonpath={.spec.containers[0].image}"))
                .isEqualTo("busybox:2");

        assertThat(kubectl("-n", ns, "apply", "--server-side", "--field-manager=other", "--force-conflicts",
                "--dry-run=server", "-f", otherImage)).isEqualTo("pod/pod-1 serverside-applied (server dry run)");
        assertThat(kubectl("-n", ns, "get", "pod", "pod-1", "-o", "jsonpath={.spec.containers[0].image}"))
                .isEqualTo("busybox:2");
        assertThat(kubectl("-n", ns, "apply", "--server-side", "--field-manager=other", "--force-conflicts",
                "-f", otherImage)).isEqualTo("pod/pod-1 serverside-applied");
        assertThat(kubectl("-n", ns, "get", "pod", "pod-1", "-o", "jsonpath={.spec.containers[0].image}"))
                .isEqualTo("busybox:3");
        assertThat(kubectl("-n", ns, "get", "pod", "pod-1", "-o",
                "jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation} {end}").split(" "))
                .contains("kubectl/Apply", "other/Apply");
        assertThat(kubectl("-n", ns, "delete", "pod", "pod-1", "--dry-run=server"))
                .matches("pod \"pod-1\" deleted( from test-\\d+ namespace)? \\(server dry run\\)");
        assertThat(kubectl("-n", ns, "get", "pod", "pod-1", "-o", "name")).isEqualTo("pod/pod-1");
    }

    @Test
    void jsonAndMergePatchesOfAPod() throws IOException {
        String ns = fixture.namespace();
        kubectl("-n", ns, "create", "-f", file("patched-pod.yaml", POD.formatted("1")));

        assertThat(kubectl("-n", ns, "patch", "pod", "pod-1", "--type=json", "-p", """
                [{"op":"test","path":"/spec/containers/0/name","value":"main"},
                 {"op":"replace","path":"/spec/containers/0/image","value":"busybox:4"},
                 {"op":"add","path":"/metadata/labels/tier","value":"json"}]""")).isEqualTo("pod/pod-1 patched");
        assertThat(kubectl("-n", ns, "patch", "pod", "pod-1", "--type=merge", "-p",
                "{\"metadata\":{\"labels\":{\"app\":null,\"merged\":\"yes\"}},"
                        + "\"spec\":{\"activeDeadlineSeconds\":600}}")).isEqualTo("pod/pod-1 patched");
        assertThat(kubectl("-n", ns, "get", "pod", "pod-1", "-o", "jsonpath={.spec.containers[0].image} "
                + "{.metadata.labels} {.spec.activeDeadlineSeconds}"))
                .isEqualTo("busybox:4 {\"merged\":\"yes\",\"tier\":\"json\"} 600");

        assertThat(kubectlFails("-n", ns, "patch", "pod", "pod-1", "--type=json", "-p",
                "[{\"op\":\"test\",\"path\":\"/spec/containers/0/image\",\"value\":\"busybox:1\"}]"))
                .contains("testing value /spec/containers/0/image failed");
        assertThat(kubectl("-n", ns, "patch", "pod", "pod-1", "--type=merge", "-p", "{\"metadata\":{}}"))
                .isEqualTo("pod/pod-1 patched (no change)");
    }

    @Test
    void watchingPodsPrintsARowForEveryChange() throws Exception {
        String ns = fixture.namespace();
        kubectl("-n", ns, "create", "-f", file("watched-pod.yaml", POD.formatted("1")));
        Process watch = start("-n", ns, "get", "pods", "-w");
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(watch.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(lines.readLine()).matches("NAME +READY +STATUS +RESTARTS +AGE");
            assertThat(lines.readLine()).matches("pod-1 +0/1 +Pending +0 +\\d+s");

            kubectl("-n", ns, "create", "-f", file("watched-pod2.yaml", POD.formatted("1").replace("pod-1", "pod-2")));
            assertThat(lines.readLine()).matches("pod-2 +0/1 +Pending +0 +\\d+s");

            kubectl("-n", ns, "patch", "pod", "pod-1", "--subresource=status", "--type=merge", "-p", RUNNING);
            assertThat(lines.readLine()).matches("pod-1 +1/1 +Running +2 \\(\\d+y\\d*d? ago\\) +\\d+s");

            kubectl("-n", ns, "delete", "pod", "pod-2");
            assertThat(lines.readLine()).matches("pod-2 +0/1 +Pending +0 +\\d+s");
        } finally {
            watch.destroy();
        }
    }

    @Test
    void jsonpathReadsPodStatusFields() throws IOException {
        String ns = fixture.namespace();
        kubectl("-n", ns, "create", "-f", file("status-pod.yaml", POD.formatted("1")));
        assertThat(kubectl("-n", ns, "get", "pod", "pod-1", "-o", "jsonpath={.status.phase}")).isEqualTo("Pending");

        kubectl("-n", ns, "patch", "pod", "pod-1", "--subresource=status", "--type=merge", "-p", RUNNING);

        assertThat(kubectl("-n", ns, "get", "pod", "pod-1", "-o", "jsonpath={.status.phase} {.status.podIP} "
                + "{.status.podIPs[*].ip} {.status.conditions[?(@.type==\"Ready\")].status} "
                + "{.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].state.running.startedAt}"))
                .isEqualTo("Running 10.0.0.7 10.0.0.7 fd00::7 True 2 2026-01-01T00:00:00Z");
        assertThat(kubectl("-n", ns, "get", "pods", "-o",
                "jsonpath={range .items[*]}{.metadata.name}={.status.containerStatuses[*].ready}{\"\\n\"}{end}"))
                .isEqualTo("pod-1=true");
        assertThat(kubectl("-n", ns, "wait", "--for=condition=Ready", "pod/pod-1", "--timeout=30s"))
                .isEqualTo("pod/pod-1 condition met");
    }

    private static Path file(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    private static String kubectl(Object... args) {
        return kubectl.succeeds(args);
    }

    private static String kubectlFails(Object... args) {
        return kubectl.fails(args);
    }

    private static Process start(Object... args) throws IOException {
        return kubectl.start(args);
    }
}
