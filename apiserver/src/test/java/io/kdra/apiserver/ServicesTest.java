package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Services as kubectl and manifests use them: kubectl create service and expose (protobuf), get with kube-apiserver's
 * columns, cluster-info, and the cluster IPs and node ports the server allocates and keeps.
 */
class ServicesTest extends KubectlAgainstServer {

    @Test
    void kubectlCreatesExposesAndListsServices() {
        String ns = fixture.namespace();
        kubectl.succeeds("-n", ns, "create", "service", "clusterip", "web", "--tcp=80:8080");
        kubectl.succeeds("-n", ns, "run", "api", "--image=busybox", "--port=9000", "--labels=app=api");
        kubectl.succeeds("-n", ns, "expose", "pod", "api", "--type=NodePort", "--port=9000");
        Service web = fixture.client.services().inNamespace(ns).withName("web").get();
        Service api = fixture.client.services().inNamespace(ns).withName("api").get();
        assertThat(web.getSpec().getClusterIP()).startsWith("10.").isNotEqualTo(api.getSpec().getClusterIP());
        assertThat(web.getSpec().getClusterIPs()).containsExactly(web.getSpec().getClusterIP());
        assertThat(web.getSpec().getType()).isEqualTo("ClusterIP");
        assertThat(web.getSpec().getSessionAffinity()).isEqualTo("None");
        assertThat(web.getSpec().getIpFamilies()).containsExactly("IPv4");
        assertThat(web.getSpec().getPorts().get(0).getProtocol()).isEqualTo("TCP");
        int nodePort = api.getSpec().getPorts().get(0).getNodePort();
        assertThat(nodePort).isBetween(30000, 32767);

        String table = kubectl.succeeds("-n", ns, "get", "svc", "-o", "wide");
        assertThat(table).containsPattern("NAME\\s+TYPE\\s+CLUSTER-IP\\s+EXTERNAL-IP\\s+PORT\\(S\\)\\s+AGE\\s+SELECTOR")
                .containsPattern("web\\s+ClusterIP\\s+" + web.getSpec().getClusterIP().replace(".", "\\.")
                        + "\\s+<none>\\s+80/TCP\\s+\\S+\\s+app=web")
                .containsPattern("api\\s+NodePort\\s+\\S+\\s+<none>\\s+9000:" + nodePort + "/TCP\\s+\\S+\\s+app=api");
        assertThat(kubectl.succeeds("cluster-info")).contains("Kubernetes control plane is running at");
    }

    @Test
    void anUpdateKeepsTheAllocatedValuesAndATakenIpIsRefused() {
        String ns = fixture.namespace();
        String manifest = dir.resolve("svc-" + ns + ".yaml").toString();
        write(manifest, """
                apiVersion: v1
                kind: Service
                metadata: {name: lb, namespace: %s}
                spec:
                  type: LoadBalancer
                  selector: {app: lb}
                  ports: [{name: http, port: 80}]
                """.formatted(ns));
        kubectl.succeeds("apply", "-f", manifest);
        Service before = fixture.client.services().inNamespace(ns).withName("lb").get();
        kubectl.succeeds("replace", "-f", manifest);
        Service after = fixture.client.services().inNamespace(ns).withName("lb").get();
        assertThat(after.getSpec().getClusterIP()).isEqualTo(before.getSpec().getClusterIP());
        assertThat(after.getSpec().getPorts().get(0).getNodePort())
                .isEqualTo(before.getSpec().getPorts().get(0).getNodePort()).isPositive();
        assertThat(kubectl.succeeds("-n", ns, "get", "svc", "lb")).contains("<pending>");

        write(manifest, """
                apiVersion: v1
                kind: Service
                metadata: {name: same-ip, namespace: %s}
                spec: {clusterIP: %s, ports: [{port: 80}]}
                """.formatted(ns, before.getSpec().getClusterIP()));
        assertThat(kubectl.fails("apply", "-f", manifest)).contains("provided IP is already allocated");
    }

    private static void write(String path, String text) {
        try {
            java.nio.file.Files.writeString(Path.of(path), text);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
