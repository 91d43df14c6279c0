package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReview;
import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The review resources {@code kubectl auth can-i} and {@code kubectl auth whoami} create, through real kubectl (which
 * sends them as protobuf) and fabric8 (JSON).
 */
class AccessReviewsTest extends KubectlAgainstServer {

    @Test
    void kubectlAuthCanIAnswersYesForWhatTheServerAllows() {
        assertThat(kubectl.succeeds("auth", "can-i", "create", "pods")).isEqualTo("yes");
        assertThat(kubectl.succeeds("auth", "can-i", "delete", "resourceclaims", "-n", "other", "--as", "alice"))
                .isEqualTo("yes");
        assertThat(kubectl.succeeds("auth", "can-i", "*", "*", "--all-namespaces")).isEqualTo("yes");
        assertThat(kubectl.succeeds("auth", "can-i", "get", "/healthz")).isEqualTo("yes");
    }

    @Test
    void theDeviceStatusOfADriverIsAskedOfRbac() {
        String verb = "arbitrary-node:update";
        assertThat(kubectl.fails("auth", "can-i", verb, "resourceclaims/gpu.example.com", "--subresource", "driver",
                "--as", "bob")).endsWith("no");
        fixture.client.rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata()
                .withName("driver-status").endMetadata().addNewRule().withApiGroups("resource.k8s.io")
                .withResources("resourceclaims/driver").withVerbs(verb).endRule().build()).create();
        fixture.client.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata()
                .withName("bob-driver-status").endMetadata().withNewRoleRef().withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole").withName("driver-status").endRoleRef().addNewSubject().withKind("User")
                .withName("bob").endSubject().build()).create();
        assertThat(kubectl.succeeds("auth", "can-i", verb, "resourceclaims/gpu.example.com", "--subresource", "driver",
                "--as", "bob")).endsWith("yes");
    }

    @Test
    void kubectlAuthCanIListsEveryRule() {
        assertThat(kubectl.succeeds("auth", "can-i", "--list", "-n", "default"))
                .contains("Resources", "Verbs").containsPattern("\\*\\.\\*\\s+\\[\\]\\s+\\[\\]\\s+\\[\\*\\]");
    }

    @Test
    void kubectlAuthWhoamiShowsTheIdentity() {
        assertThat(kubectl.succeeds("auth", "whoami")).contains("kdra-admin").contains("system:masters");
        assertThat(kubectl.succeeds("auth", "whoami", "--as", "carol", "--as-group", "dev", "-o", "json"))
                .contains("\"username\": \"carol\"").contains("\"dev\"");
    }

    @Test
    void fabric8ReviewsOverJson() {
        SelfSubjectAccessReview review = fixture.client.authorization().v1().selfSubjectAccessReview()
                .create(new SelfSubjectAccessReviewBuilder().withNewSpec().withNewResourceAttributes()
                        .withVerb("list").withResource("resourceslices").withGroup("resource.k8s.io")
                        .endResourceAttributes().endSpec().build());
        assertThat(review.getStatus().getAllowed()).isTrue();
        assertThat(review.getSpec().getResourceAttributes().getResource()).isEqualTo("resourceslices");
        SelfSubjectReview identity = fixture.client.resource(new SelfSubjectReviewBuilder().build()).create();
        assertThat(identity.getStatus().getUserInfo().getUsername()).isEqualTo("kdra-admin");
    }

    @Test
    void badReviewsAreClientErrors() {
        try (ServerFixture plain = new ServerFixture()) {
            badReviewsAreClientErrors(plain);
        }
    }

    private static void badReviewsAreClientErrors(ServerFixture fixture) {
        String path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
        HttpResponse<String> neither = fixture.send("POST", path, "application/json",
                "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SelfSubjectAccessReview\",\"spec\":{}}");
        assertThat(neither.statusCode()).isEqualTo(422);
        assertThat(neither.body()).contains("exactly one of nonResourceAttributes or resourceAttributes");
        assertThat(fixture.send("POST", path, "application/json", "{not json").statusCode()).isEqualTo(400);
        assertThat(fixture.send("POST", path, "application/json", "{\"kind\":\"Pod\",\"apiVersion\":\"v1\"}")
                .statusCode()).isEqualTo(400);
        assertThat(fixture.send("GET", path, null, null).statusCode()).isEqualTo(405);
        assertThat(fixture.send("POST", path + "/x", "application/json", "{}").statusCode()).isEqualTo(404);
    }

    @Test
    void discoveryListsTheReviews() {
        assertThat(kubectl.succeeds("api-resources", "--api-group", "authorization.k8s.io"))
                .contains("selfsubjectaccessreviews", "selfsubjectrulesreviews");
        assertThat(kubectl.succeeds("api-versions")).contains("authentication.k8s.io/v1");
    }
}
