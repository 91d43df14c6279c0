package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AdmissionTest extends ServerTestBase {

    @Test
    void adminAccessNeedsTheNamespaceLabel() {
        String ns = fixture.namespace();
        var claims = fixture.client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(ns);
        ResourceClaim claim = adminClaim();
        assertThatThrownBy(() -> claims.resource(claim).create())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getStatus().getMessage()).isEqualTo("ResourceClaim.resource.k8s.io \"admin\" is "
                            + "invalid: spec.devices.requests[0].adminAccess: Forbidden: admin access to devices "
                            + "requires the `resource.kubernetes.io/admin-access: true` label on the containing "
                            + "namespace");
                    assertThat(e.getStatus().getDetails().getCauses()).singleElement().satisfies(cause -> {
                        assertThat(cause.getReason()).isEqualTo("FieldValueForbidden");
                        assertThat(cause.getField()).isEqualTo("spec.devices.requests[0].adminAccess");
                    });
                });
        fixture.client.namespaces().withName(ns).edit(n -> new NamespaceBuilder(n).editMetadata()
                .addToLabels("resource.kubernetes.io/admin-access", "true").endMetadata().build());
        assertThat(claims.resource(claim).create().getMetadata().getUid()).isNotEmpty();
    }

    @Test
    void adminAccessInATemplateOrGrantedInAStatusNeedsTheNamespaceLabel() {
        String ns = fixture.namespace();
        var resources = fixture.client.dynamicResourceAllocation().v1();
        ResourceClaimTemplate template = new ResourceClaimTemplateBuilder().withNewMetadata().withName("admin")
                .endMetadata().withNewSpec().withSpec(adminClaim().getSpec()).endSpec().build();
        assertThatThrownBy(() -> resources.resourceClaimTemplates().inNamespace(ns).resource(template).create())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getStatus().getMessage())
                        .isEqualTo("ResourceClaimTemplate.resource.k8s.io \"admin\" is invalid: "
                                + "spec.devices.requests[0].adminAccess: Forbidden: admin access to devices requires "
                                + "the `resource.kubernetes.io/admin-access: true` label on the containing namespace"));

        var claims = resources.resourceClaims().inNamespace(ns);
        ResourceClaim created = claims.resource(claim("granted")).create();
        created.setStatus(new ResourceClaimStatusBuilder().withNewAllocation().withNewDevices().addNewResult()
                .withRequest("req-0").withDriver("dra.example.com").withPool("pool").withDevice("dev-0")
                .withAdminAccess(true).endResult().endDevices().endAllocation().build());
        assertThatThrownBy(() -> claims.resource(created).updateStatus())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getStatus().getMessage()).contains("status.allocation.devices.results[0].adminAccess: "
                            + "Forbidden: admin access to devices requires");
                });
    }

    @Test
    void resourceClaimCountQuota() {
        String ns = fixture.namespace();
        var claims = fixture.client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(ns);
        claims.resource(claim("claim-0")).create();
        String resource = "count/resourceclaims.resource.k8s.io";
        fixture.client.resourceQuotas().inNamespace(ns).resource(new ResourceQuotaBuilder().withNewMetadata()
                .withName("object-count").endMetadata().withNewSpec().withHard(Map.of(resource, new Quantity("1")))
                .endSpec().build()).create();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            ResourceQuota quota = fixture.client.resourceQuotas().inNamespace(ns).withName("object-count").get();
            assertThat(quota.getStatus().getUsed()).containsEntry(resource, new Quantity("1"));
            assertThat(quota.getStatus().getHard()).containsEntry(resource, new Quantity("1"));
        });
        assertThatThrownBy(() -> claims.resource(claim("claim-1")).create())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(403);
                    assertThat(e.getStatus().getMessage()).isEqualTo("resourceclaims.resource.k8s.io \"claim-1\" is "
                            + "forbidden: exceeded quota: object-count, requested: "
                            + "count/resourceclaims.resource.k8s.io=1, used: count/resourceclaims.resource.k8s.io=1, "
                            + "limited: count/resourceclaims.resource.k8s.io=1");
                });
    }

    @Test
    void nodeBoundPluginMayOnlyWriteItsOwnNodesSlices() {
        try (KubernetesClient plugin = impersonating("node-a")) {
            var slices = plugin.dynamicResourceAllocation().v1().resourcesSlices();
            assertThat(slices.resource(slice("own", "node-a")).create().getMetadata().getUid()).isNotEmpty();
            assertThatThrownBy(() -> slices.resource(slice("other", "node-b")).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(422);
                        assertThat(e.getStatus().getReason()).isEqualTo("Invalid");
                        assertThat(e.getStatus().getMessage()).isEqualTo("resourceslices.resource.k8s.io \"other\" "
                                + "is forbidden: ValidatingAdmissionPolicy 'resourceslices-policy-dra-kubelet-plugin' "
                                + "with binding 'resourceslices-policy-dra-kubelet-plugin' denied request: this user "
                                + "running on node 'node-a' may not modify resourceslices on node 'node-b'");
                    });
            ResourceSlice cluster = slice("cluster", null);
            cluster.getSpec().setAllNodes(true);
            assertThatThrownBy(() -> slices.resource(cluster).create())
                    .hasMessageContaining("this user running on node 'node-a' may not modify cluster resourceslices");
            fixture.client.dynamicResourceAllocation().v1().resourcesSlices().resource(cluster).create();
            assertThatThrownBy(() -> slices.withName("cluster").delete())
                    .hasMessageContaining("this user running on node 'node-a' may not modify cluster resourceslices");
            slices.withName("own").delete();
        }
    }

    @Test
    void impersonatingGroupsWithoutAUserFails() {
        var response = fixture.http.sendAsync(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(fixture.server.url() + "/api/v1/namespaces"))
                .header("Authorization", "Bearer " + fixture.server.adminToken())
                .header("Impersonate-Group", "system:nodes").build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).join();
        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.body()).contains("requested [group system:nodes] without impersonating a user");
    }

    @Test
    void unauthenticatedRequestsAreRejected() {
        var response = fixture.http.sendAsync(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(fixture.server.url() + "/api/v1/namespaces"))
                .header("Authorization", "Bearer wrong").build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).join();
        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.body()).contains("\"reason\":\"Unauthorized\"");
    }

    private static KubernetesClient impersonating(String node) {
        Config config = new ConfigBuilder().withMasterUrl(fixture.server.url())
                .withOauthToken(fixture.server.adminToken())
                .withImpersonateUsername("system:serviceaccount:dra:plugin")
                // fabric8 does not escape extra keys; client-go sends '/' as %2F, which the server decodes
                .withImpersonateExtras(Map.of("authentication.kubernetes.io%2Fnode-name", java.util.List.of(node)))
                .withRequestRetryBackoffLimit(0).build();
        return fixture.clientFor(config);
    }

    private static ResourceClaim claim(String name) {
        return new ResourceClaimBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .withNewDevices().addNewRequest().withName("req-0").withNewExactly().withDeviceClassName("class")
                .endExactly().endRequest().endDevices().endSpec().build();
    }

    private static ResourceClaim adminClaim() {
        ResourceClaim claim = claim("admin");
        claim.getSpec().getDevices().getRequests().get(0).getExactly().setAdminAccess(true);
        return claim;
    }

    private static ResourceSlice slice(String name, String node) {
        return new ResourceSliceBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .withDriver("dra.example.com").withNodeName(node).withNewPool().withName("pool").withGeneration(1L)
                .withResourceSliceCount(1L).endPool().endSpec().build();
    }
}
