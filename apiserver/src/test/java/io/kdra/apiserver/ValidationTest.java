package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ValidationTest extends ServerTestBase {

    @Test
    void objectNamesFollowTheKindsFormat() {
        var response = fixture.send("POST", "/apis/resource.k8s.io/v1/deviceclasses", "application/json",
                "{\"metadata\":{\"name\":\"Bad_Name\"}}");
        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(response.body()).contains("\"message\":\"DeviceClass.resource.k8s.io \\\"Bad_Name\\\" is invalid: "
                + "metadata.name: Invalid value: \\\"Bad_Name\\\": a lowercase RFC 1123 subdomain must consist of lower "
                + "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
                + "(e.g. 'example.com', regex used for validation is "
                + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\"")
                .contains("\"reason\":\"FieldValueInvalid\"", "\"field\":\"metadata.name\"");
        var missing = fixture.send("POST", "/api/v1/namespaces/default/configmaps", "application/json", "{}");
        assertThat(missing.statusCode()).isEqualTo(422);
        assertThat(missing.body()).contains(
                "ConfigMap \\\"\\\" is invalid: metadata.name: Required value: name or generateName is required");
        var namespace = fixture.send("POST", "/api/v1/namespaces", "application/json",
                "{\"metadata\":{\"name\":\"a.b\"}}");
        assertThat(namespace.body()).contains("a lowercase RFC 1123 label must consist of");
    }

    @Test
    void podResourceClaimReferences() {
        String pod = """
                {"metadata":{"name":"p"},"spec":{
                  "resourceClaims":[{"name":"a","resourceClaimName":"c","resourceClaimTemplateName":"t"},{"name":"b"}],
                  "containers":[{"name":"c","image":"i","resources":{"claims":[{"name":"x"}]}}]}}""";
        var response = fixture.send("POST", "/api/v1/namespaces/default/pods", "application/json", pod);
        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(response.body()).startsWith("{\"kind\":\"Status\"")
                .contains("Pod \\\"p\\\" is invalid: [spec.resourceClaims[0]: Invalid value: ")
                .contains("at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified")
                .contains("spec.resourceClaims[1]: Invalid value: ")
                .contains("must specify one of: `resourceClaimName`, `resourceClaimTemplateName`")
                .contains("spec.containers[0].resources.claims[0]: Not found: \\\"x\\\": must be one of the names "
                        + "in pod.spec.resourceClaims: a, b]")
                .contains("\"reason\":\"FieldValueNotFound\"");
    }
}
