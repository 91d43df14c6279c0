package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A Job gets the selector kube-apiserver generates, so kubectl logs job/x finds its pods and no other's. */
class JobSelectorTest extends ServerTestBase {

    @Test
    void aJobWithoutSelectorSelectsItsOwnUid() {
        String ns = fixture.namespace();
        Job job = fixture.client.batch().v1().jobs().inNamespace(ns).resource(new JobBuilder().withNewMetadata()
                .withName("j").endMetadata().withNewSpec().withNewTemplate().withNewSpec().addNewContainer()
                .withName("c").withImage("busybox").endContainer().withRestartPolicy("Never").endSpec().endTemplate()
                .endSpec().build()).create();
        String uid = job.getMetadata().getUid();
        assertThat(job.getSpec().getSelector().getMatchLabels())
                .containsExactly(Map.entry("batch.kubernetes.io/controller-uid", uid));
        assertThat(job.getSpec().getTemplate().getMetadata().getLabels())
                .containsEntry("batch.kubernetes.io/controller-uid", uid).containsEntry("controller-uid", uid)
                .containsEntry("batch.kubernetes.io/job-name", "j").containsEntry("job-name", "j");
    }

    @Test
    void aManualSelectorIsKept() {
        String ns = fixture.namespace();
        Job job = fixture.client.batch().v1().jobs().inNamespace(ns).resource(new JobBuilder().withNewMetadata()
                .withName("manual").endMetadata().withNewSpec().withManualSelector(true).withNewSelector()
                .addToMatchLabels("app", "batch").endSelector().withNewTemplate().withNewMetadata()
                .addToLabels("app", "batch").endMetadata().withNewSpec().addNewContainer().withName("c")
                .withImage("busybox").endContainer().withRestartPolicy("Never").endSpec().endTemplate().endSpec()
                .build()).create();
        assertThat(job.getSpec().getSelector().getMatchLabels()).containsExactly(Map.entry("app", "batch"));
        assertThat(job.getSpec().getTemplate().getMetadata().getLabels()).containsOnlyKeys("app");
    }
}
