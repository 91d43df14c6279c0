package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import org.junit.jupiter.api.Test;

/** The server's feature gates reach the resource.k8s.io strategies: fields of disabled features are dropped. */
class FeatureGatesTest {

    private static final KubernetesVersion V1_34 = new KubernetesVersion(1, 34);

    @Test
    void theConfigDefaultsToTheGatesOfItsVersion() {
        assertThat(ApiServerConfig.defaults().featureGates()).isEqualTo(FeatureGates.defaults(V1_34));
        assertThat(ApiServerConfig.defaults().withKubernetesVersion("1.36").featureGates())
                .isEqualTo(FeatureGates.defaults(new KubernetesVersion(1, 36)));
        ApiServerConfig withGates = ApiServerConfig.defaults()
                .withFeatureGates(FeatureGates.parse(V1_34, "DRADeviceTaints=true"));
        assertThat(withGates.kubernetesVersion()).isEqualTo("1.34");
        assertThat(withGates.withKubernetesVersion("1.35").featureGates())
                .isEqualTo(FeatureGates.parse(new KubernetesVersion(1, 35), "DRADeviceTaints=true"));
        assertThatThrownBy(() -> new ApiServerConfig(0, false, "1.35", 1, 1, 1, 1, 1, 1, FeatureGates.defaults(V1_34)))
                .hasMessage("the feature gates are those of Kubernetes 1.34 but the server emulates 1.35");
    }

    @Test
    void disabledFieldsAreDroppedOnCreateAndStatusUpdate() {
        ApiServerConfig config = ApiServerConfig.defaults()
                .withFeatureGates(FeatureGates.parse(V1_34, "DRAAdminAccess=false,DRAResourceClaimDeviceStatus=false"));
        try (ServerFixture fixture = new ServerFixture(config)) {
            KubernetesClient client = fixture.client;
            String ns = fixture.namespace();
            ResourceClaim claim = client.resource(new ResourceClaimBuilder().withNewMetadata().withName("c")
                    .withNamespace(ns).endMetadata().withNewSpec().withNewDevices().addNewRequest().withName("r")
                    .withNewExactly().withDeviceClassName("class").withAdminAccess(true).endExactly().endRequest()
                    .endDevices().endSpec().build()).create();
            assertThat(claim.getSpec().getDevices().getRequests().get(0).getExactly().getAdminAccess())
                    .as("adminAccess dropped: DRAAdminAccess is off").isNull();

            claim.setStatus(new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder()
                    .withNewAllocation().withNewDevices().withResults(new DeviceRequestAllocationResultBuilder()
                            .withRequest("r").withDriver("d.example.com").withPool("p").withDevice("x").build())
                    .endDevices().endAllocation()
                    .withDevices(new AllocatedDeviceStatusBuilder().withDriver("d.example.com").withPool("p")
                            .withDevice("x").build())
                    .build());
            ResourceClaim updated = client.resource(claim).updateStatus();
            assertThat(updated.getStatus().getAllocation()).isNotNull();
            assertThat(updated.getStatus().getDevices()).as("status.devices dropped").isNullOrEmpty();
        }
    }

    @Test
    void aDroppedFirstAvailableLeavesARequestThatIsInvalid() {
        ApiServerConfig config = ApiServerConfig.defaults()
                .withFeatureGates(FeatureGates.parse(V1_34, "DRAPrioritizedList=false"));
        try (ServerFixture fixture = new ServerFixture(config)) {
            String ns = fixture.namespace();
            ResourceClaim claim = new ResourceClaimBuilder().withNewMetadata().withName("c").withNamespace(ns)
                    .endMetadata().withNewSpec().withNewDevices().addNewRequest().withName("r").addNewFirstAvailable()
                    .withName("a").withDeviceClassName("class").endFirstAvailable().endRequest().endDevices()
                    .endSpec().build();

            assertThatThrownBy(() -> fixture.client.resource(claim).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(422);
                        assertThat(e.getStatus().getMessage()).contains("spec.devices.requests[0]");
                    });
        }
    }

    @Test
    void sliceTaintsAreDroppedWhileTheGateIsOffAndKeptWhileItIsOn() {
        ResourceSlice tainted = new ResourceSliceBuilder().withNewMetadata().withName("s").endMetadata()
                .withNewSpec().withDriver("d.example.com").withNodeName("n").withNewPool().withName("p")
                .withGeneration(1L).withResourceSliceCount(1L).endPool().addNewDevice().withName("x")
                .addNewTaint().withKey("k").withEffect("NoSchedule").endTaint().endDevice().endSpec().build();
        try (ServerFixture fixture = new ServerFixture(ApiServerConfig.defaults())) {
            ResourceSlice created = fixture.client.resource(tainted).create();
            assertThat(created.getSpec().getDevices().get(0).getTaints())
                    .as("DRADeviceTaints is off in 1.34").isNullOrEmpty();
        }
        ApiServerConfig on = ApiServerConfig.defaults().withFeatureGates(FeatureGates.parse(V1_34, "DRADeviceTaints=true"));
        try (ServerFixture fixture = new ServerFixture(on)) {
            ResourceSlice created = fixture.client.resource(tainted).create();
            assertThat(created.getSpec().getDevices().get(0).getTaints()).hasSize(1);
        }
    }
}
