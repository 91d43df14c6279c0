package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * kubectl's imperative commands, which send the built-in kinds as protobuf and accept protobuf answers: what they
 * create is read back over JSON with fabric8, so the transcoding is checked end to end.
 */
class KubectlProtobufTest extends KubectlAgainstServer {

    @Test
    void createEveryImperativeKind() {
        assertThat(kubectl.succeeds("create", "namespace", "imperative")).isEqualTo("namespace/imperative created");
        assertThat(fixture.client.namespaces().withName("imperative").get().getStatus().getPhase())
                .isEqualTo("Active");
        String ns = "imperative";

        assertThat(kubectl.succeeds("-n", ns, "create", "configmap", "settings", "--from-literal=mode=fast",
                "--from-literal=empty="))
                .isEqualTo("configmap/settings created");
        ConfigMap configMap = fixture.client.configMaps().inNamespace(ns).withName("settings").get();
        assertThat(configMap.getData()).containsEntry("mode", "fast").containsEntry("empty", "");

        assertThat(kubectl.succeeds("-n", ns, "create", "secret", "generic", "login",
                "--from-literal=password=hunter2")).isEqualTo("secret/login created");
        Secret secret = fixture.client.secrets().inNamespace(ns).withName("login").get();
        assertThat(new String(Base64.getDecoder().decode(secret.getData().get("password")), StandardCharsets.UTF_8))
                .isEqualTo("hunter2");
        assertThat(secret.getType()).isEqualTo("Opaque");

        assertThat(kubectl.succeeds("-n", ns, "create", "serviceaccount", "robot"))
                .isEqualTo("serviceaccount/robot created");
        assertThat(fixture.client.serviceAccounts().inNamespace(ns).withName("robot").get()).isNotNull();

        assertThat(kubectl.succeeds("-n", ns, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=2",
                "--port=8080")).isEqualTo("deployment.apps/web created");
        Deployment deployment = fixture.client.apps().deployments().inNamespace(ns).withName("web").get();
        assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
        assertThat(deployment.getSpec().getSelector().getMatchLabels()).containsEntry("app", "web");
        assertThat(deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
                .isEqualTo("nginx:1.27");
        assertThat(deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getPorts().get(0)
                .getContainerPort()).isEqualTo(8080);
        assertThat(deployment.getMetadata().getCreationTimestamp()).isNotEmpty();

        assertThat(kubectl.succeeds("-n", ns, "create", "job", "once", "--image=busybox", "--", "echo", "hi"))
                .isEqualTo("job.batch/once created");
        Job job = fixture.client.batch().v1().jobs().inNamespace(ns).withName("once").get();
        assertThat(job.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand())
                .containsExactly("echo", "hi");
        assertThat(job.getSpec().getTemplate().getSpec().getRestartPolicy()).isEqualTo("Never");

        assertThat(kubectl.succeeds("-n", ns, "run", "shell", "--image=busybox", "--labels=app=shell", "--",
                "sleep", "3600")).isEqualTo("pod/shell created");
        Pod pod = fixture.client.pods().inNamespace(ns).withName("shell").get();
        assertThat(pod.getSpec().getContainers().get(0).getArgs()).containsExactly("sleep", "3600");
        assertThat(pod.getMetadata().getLabels()).containsEntry("app", "shell");

        assertThat(kubectl.succeeds("-n", ns, "get", "deployment", "web"))
                .matches("(?s)NAME +READY +UP-TO-DATE +AVAILABLE +AGE\nweb +0/2 +0 +0 +\\d+s");
        assertThat(kubectl.succeeds("-n", ns, "get", "job", "once"))
                .matches("(?s)NAME +STATUS +COMPLETIONS +DURATION +AGE\nonce +Running +0/1 +\\d+s");
        assertThat(kubectl.succeeds("-n", ns, "get", "deployments,jobs,configmaps,secrets,serviceaccounts,pods",
                "-o", "name").lines().toList()).contains("deployment.apps/web", "job.batch/once",
                "configmap/settings", "secret/login", "serviceaccount/robot", "pod/shell");
    }

    @Test
    void labelScaleAndDelete() {
        String ns = fixture.namespace();
        kubectl.succeeds("-n", ns, "create", "configmap", "labelled", "--from-literal=k=v");
        assertThat(kubectl.succeeds("-n", ns, "label", "configmap", "labelled", "tier=gold"))
                .isEqualTo("configmap/labelled labeled");
        assertThat(fixture.client.configMaps().inNamespace(ns).withName("labelled").get().getMetadata().getLabels())
                .containsEntry("tier", "gold");

        kubectl.succeeds("-n", ns, "create", "deployment", "scaled", "--image=nginx");
        assertThat(kubectl.succeeds("-n", ns, "scale", "deployment", "scaled", "--replicas=4"))
                .isEqualTo("deployment.apps/scaled scaled");
        assertThat(fixture.client.apps().deployments().inNamespace(ns).withName("scaled").get().getSpec()
                .getReplicas()).isEqualTo(4);

        for (String object : List.of("configmap/labelled", "deployment/scaled")) {
            assertThat(kubectl.succeeds("-n", ns, "delete", object)).matches(".* deleted( from " + ns + " namespace)?");
        }
        assertThat(fixture.client.configMaps().inNamespace(ns).withName("labelled").get()).isNull();
        assertThat(fixture.client.apps().deployments().inNamespace(ns).withName("scaled").get()).isNull();
    }

    @Test
    void errorsComeBackAsProtobufStatuses() {
        kubectl.succeeds("create", "namespace", "twice");
        assertThat(kubectl.fails("create", "namespace", "twice"))
                .isEqualTo("Error from server (AlreadyExists): namespaces \"twice\" already exists");
        assertThat(kubectl.fails("-n", "absent", "create", "configmap", "orphan"))
                .contains("namespaces \"absent\" not found");
        assertThat(kubectl.fails("create", "namespace", "Not_A_Name"))
                .contains("The Namespace \"Not_A_Name\" is invalid");
    }
}
