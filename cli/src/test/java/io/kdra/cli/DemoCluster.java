package io.kdra.cli;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.apiserver.ApiServer;
import io.kdra.kube.client.KubeClients;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The embedded API server with node {@code node-1} and claim {@code demo/claim}, whose request {@code req} is allocated
 * device {@code device-00} of the test driver; its kubeconfig is written for a standalone driver.
 */
final class DemoCluster implements AutoCloseable {

    static final String DRIVER = "test-driver.cdi.k8s.io";
    static final String NODE = "node-1";

    final ApiServer server;
    final KubeClients clients = KubeClients.create();
    final Path kubeconfig;
    final KubernetesClient client;
    final ResourceClaim claim;

    DemoCluster(Path dir) throws IOException {
        server = ApiServer.builder().build().start();
        kubeconfig = server.writeKubeconfig(dir.resolve("kubeconfig"));
        client = clients.client(Config.fromKubeconfig(kubeconfig.toFile()));
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("demo").endMetadata().build())
                .create();
        ResourceClaim created = client.resource(new ResourceClaimBuilder()
                .withNewMetadata().withNamespace("demo").withName("claim").endMetadata()
                .withNewSpec().withNewDevices().addNewRequest().withName("req").withNewExactly()
                .withDeviceClassName("test-class").endExactly().endRequest().endDevices().endSpec()
                .build()).create();
        created.setStatus(new ResourceClaimStatusBuilder().withNewAllocation().withNewDevices()
                .withResults(new DeviceRequestAllocationResultBuilder().withRequest("req").withDriver(DRIVER)
                        .withPool(NODE).withDevice("device-00").build())
                .endDevices().endAllocation().build());
        claim = client.resource(created).updateStatus();
    }

    String claimUid() {
        return claim.getMetadata().getUid();
    }

    @Override
    public void close() {
        clients.close();
        server.close();
    }
}
