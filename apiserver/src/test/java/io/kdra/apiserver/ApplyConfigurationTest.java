package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ApplyConfigurationTest extends ServerTestBase {

    private static final String APPLY = "application/apply-patch+yaml";

    @Test
    void unknownFieldsInAnApplyConfigurationAreRejectedWhateverTheFieldValidation() {
        String claims = "/apis/resource.k8s.io/v1/namespaces/" + fixture.namespace() + "/resourceclaims/applied";
        String config = "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":"
                + "\"applied\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":{\"deviceClassName\":"
                + "\"gpu\"%s}}]}}}";

        var ignored = fixture.send("PATCH", claims + "?fieldManager=m&fieldValidation=Ignore", APPLY,
                config.formatted(",\"cont\":1"));
        assertThat(ignored.statusCode()).isEqualTo(400);
        assertThat(ignored.body()).contains("failed to create typed patch object (resource.k8s.io/v1, "
                + "Kind=ResourceClaim): .spec.devices.requests[0].exactly.cont: field not declared in schema");

        var two = fixture.send("PATCH", claims + "?fieldManager=m", APPLY, config.formatted(",\"cont\":1,\"x\":2"));
        assertThat(two.statusCode()).isEqualTo(400);
        assertThat(two.body()).contains("): errors:\\n  .spec.devices.requests[0].exactly.cont: field not declared in "
                + "schema\\n  .spec.devices.requests[0].exactly.x: field not declared in schema");

        var applied = fixture.send("PATCH", claims + "?fieldManager=m&fieldValidation=Strict", APPLY,
                config.formatted(""));
        assertThat(applied.statusCode()).as(applied.body()).isEqualTo(201);
        assertThat(applied.headers().allValues("Warning")).isEmpty();
    }

    @Test
    void anApplyConfigurationMustBeInTheVersionOfTheUrl() {
        String claims = "/apis/resource.k8s.io/v1/namespaces/" + fixture.namespace() + "/resourceclaims/versioned";

        var response = fixture.send("PATCH", claims + "?fieldManager=m", APPLY, "{\"apiVersion\":\"resource.k8s.io/v1beta1\","
                + "\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"versioned\"}}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("Incorrect version specified in apply patch. Specified patch version: "
                + "resource.k8s.io/v1beta1, expected: resource.k8s.io/v1");
    }

    @Test
    void aPatchWhoseResultHasAValueOfTheWrongTypeIsInvalid() {
        String pods = "/api/v1/namespaces/" + fixture.namespace() + "/pods";
        assertThat(fixture.send("POST", pods, "application/json", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                + "\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}")
                .statusCode()).isEqualTo(201);

        var response = fixture.send("PATCH", pods + "/p", "application/merge-patch+json",
                "{\"spec\":{\"activeDeadlineSeconds\":\"soon\"}}");

        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(response.body()).contains("is invalid: patch: Invalid value: ", "json: cannot unmarshal string into "
                + "Go struct field PodSpec.spec.activeDeadlineSeconds of type int64");
    }

    @Test
    void anApplyConfigurationWithAValueOfTheWrongTypeIsABadRequest() {
        String pods = "/api/v1/namespaces/" + fixture.namespace() + "/pods/typed";

        var response = fixture.send("PATCH", pods + "?fieldManager=m", APPLY, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                + "\"metadata\":{\"name\":\"typed\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":[\"i\"]}]}}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("json: cannot unmarshal array into Go struct field Container.spec."
                + "containers.image of type string");
    }
}
