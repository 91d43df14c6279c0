package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.kube.client.KubeClients;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A restarted server goes on over its predecessor's stored state, as kube-apiserver over the same etcd, while its
 * version and feature gates are the new binary's: what an upgrade or downgrade of the control plane needs.
 */
class RestartTest {

    @Test
    void aRestartKeepsObjectsTokensCertificateAndPortButServesItsOwnVersionAndGates() {
        ApiServer old = ApiServer.builder().config(ApiServerConfig.defaults().withTls(true)
                .withKubernetesVersion("1.33")).build().start();
        ApiServer restarted = null;
        try (KubeClients clients = KubeClients.create()) {
            KubernetesClient admin = clients.client(old.url(), old.adminToken(), old.caCertificatePem());
            String nodeToken = old.issueToken(new UserInfo("system:node:n1", "",
                    List.of("system:nodes", "system:authenticated"), Map.of()));
            assertThat(admin.getKubernetesVersion().getGitVersion()).isEqualTo("v1.33.0");
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("skew")
                    .withLabels(Map.of("resource.kubernetes.io/admin-access", "true")).endMetadata().build()).create();
            ConfigMap stored = admin.configMaps().inNamespace("skew").resource(new ConfigMapBuilder()
                    .withNewMetadata().withName("kept").endMetadata().withData(Map.of("a", "b")).build()).create();
            assertThat(createAdminAccessClaim(admin, "at-1-33").getSpec().getDevices().getRequests().get(0)
                    .getExactly().getAdminAccess()).as("DRAAdminAccess is off by default in 1.33").isNull();

            old.close();
            restarted = ApiServer.builder().config(ApiServerConfig.defaults().withTls(true)
                    .withKubernetesVersion("1.34")).restartOf(old).build().start();

            assertThat(restarted.url()).isEqualTo(old.url());
            assertThat(restarted.adminToken()).isEqualTo(old.adminToken());
            assertThat(restarted.caCertificatePem()).isEqualTo(old.caCertificatePem());
            // the old client, with the old server's token and CA, goes on against the new server
            assertThat(admin.getKubernetesVersion().getGitVersion()).isEqualTo("v1.34.0");
            ConfigMap kept = admin.configMaps().inNamespace("skew").withName("kept").get();
            assertThat(kept.getMetadata().getResourceVersion()).isEqualTo(stored.getMetadata().getResourceVersion());
            assertThat(kept.getMetadata().getUid()).isEqualTo(stored.getMetadata().getUid());
            KubernetesClient node = clients.client(restarted.url(), nodeToken, restarted.caCertificatePem());
            assertThat(node.nodes().list().getItems()).isEmpty();
            assertThat(createAdminAccessClaim(admin, "at-1-34").getSpec().getDevices().getRequests().get(0)
                    .getExactly().getAdminAccess()).as("DRAAdminAccess is on by default in 1.34").isTrue();
            assertThat(admin.namespaces().list().getItems()).extracting(ns -> ns.getMetadata().getName())
                    .containsExactlyInAnyOrder("default", "kube-system", "kube-public", "kube-node-lease", "skew");
        } finally {
            old.close();
            if (restarted != null) {
                restarted.close();
            }
        }
    }

    @Test
    void aRunningServerCannotBeRestartedNorChangeHowItServes() {
        try (ApiServer running = ApiServer.builder().config(ApiServerConfig.defaults()).build().start()) {
            assertThatThrownBy(() -> ApiServer.builder().restartOf(running).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("close the API server on port " + running.port()
                            + " before building its restart: the restart binds the same port");
            running.close();
            assertThatThrownBy(() -> ApiServer.builder().config(ApiServerConfig.defaults().withTls(true))
                    .restartOf(running).build())
                    .hasMessage("a restarted API server serves as its predecessor did: tls false, got tls true");
        }
    }

    private static ResourceClaim createAdminAccessClaim(KubernetesClient client, String name) {
        return client.resource(new ResourceClaimBuilder().withNewMetadata().withName(name).withNamespace("skew")
                .endMetadata().withNewSpec().withNewDevices().addNewRequest().withName("r").withNewExactly()
                .withDeviceClassName("class").withAdminAccess(true).endExactly().endRequest().endDevices().endSpec()
                .build()).create();
    }
}
