package io.kdra.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.ApiServer;
import io.kdra.apiserver.validation.ExpressionChecker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ApiServerCommandTest {

    @Test
    void helpListsEveryOption() {
        StringWriter out = new StringWriter();
        int code = new CommandLine(new Kdra()).setOut(new PrintWriter(out))
                .execute("cluster", "apiserver", "--help");
        assertThat(code).isZero();
        assertThat(out.toString()).contains("--port", "--kubeconfig", "--[no-]tls", "--kubernetes-version");
    }

    @Test
    void badVersionIsReportedWithoutStarting() {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new Kdra()).setErr(new PrintWriter(err))
                .execute("cluster", "apiserver", "--kubernetes-version", "latest");
        assertThat(code).isNotZero();
        assertThat(err.toString()).contains("kubernetesVersion must look like <major>.<minor>, e.g. 1.34, got 'latest'");
    }

    @Test
    void celCheckerIsTheAllocatorsCompiler() {
        ExpressionChecker checker = ApiServerCommand.celChecker();
        assertThat(checker.check("device.driver == \"gpu.example.com\"")).isEmpty();
        assertThat(checker.check("device.allowMultipleAllocations == true")).isEmpty();
        assertThat(checker.check("device.driver ==")).get().asString().startsWith("compilation failed: ERROR: ");
        assertThat(checker.check("device.driver")).get().asString()
                .isEqualTo("must evaluate to bool or the unknown type, not string");
    }

    @Test
    void theServerRejectsASelectorTheAllocatorCannotCompile() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        try (ApiServer server = ApiServer.builder().celChecker(ApiServerCommand.celChecker()).build().start()) {
            HttpResponse<String> bad = createDeviceClass(http, server, "bad", "device.driver ==");
            assertThat(bad.statusCode()).isEqualTo(422);
            assertThat(bad.body()).contains("DeviceClass.resource.k8s.io \\\"bad\\\" is invalid: "
                    + "spec.selectors[0].cel.expression: Invalid value: \\\"device.driver ==\\\": "
                    + "compilation failed: ERROR: ");
            assertThat(createDeviceClass(http, server, "good", "device.driver == 'gpu.example.com'").statusCode())
                    .isEqualTo(201);
        }
    }

    private static HttpResponse<String> createDeviceClass(HttpClient http, ApiServer server, String name,
            String expression) throws Exception {
        String body = """
                {"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"%s"},
                 "spec":{"selectors":[{"cel":{"expression":"%s"}}]}}""".formatted(name, expression);
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.url() + "/apis/resource.k8s.io/v1/deviceclasses"))
                .header("Authorization", "Bearer " + server.adminToken()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
