package io.kdra.e2e;

import static org.hamcrest.Matchers.hasSize;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import io.kdra.framework.UpgradesCluster;
import io.kdra.framework.Waits;
import io.kdra.kube.KubernetesVersion;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * versionskew.go: a claim and a pod work on a cluster of the previous minor release, again after the control plane and
 * kubelets are upgraded to the current version (slices wiped and republished), and the pod of the upgraded cluster is
 * deleted after the downgrade. Upstream builds kind clusters of both releases; here the spec's own embedded cluster
 * switches its version in place ({@link UpgradesCluster}).
 */
@DraSpec
@DisplayName("[sig-node] [DRA] [Feature:DynamicResourceAllocation] [FeatureGate:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DynamicResourceAllocation")
class VersionSkewSpecs {

    /** How long the driver may take to publish its slices again after the kubelets wiped them. */
    private static final Duration SLICES_REPUBLISHED = Duration.ofMinutes(5);

    final Framework f = Framework.create("dra");

    @Test
    @DisplayName("upgrade/downgrade works")
    @UpgradesCluster
    void upgradeDowngradeWorks() throws Exception {
        f.backend().versionSwitchUnavailable().ifPresent(Assumptions::abort);
        KubernetesVersion previous = f.backend().kubernetesVersion();
        KubernetesVersion current = new KubernetesVersion(previous.major(), previous.minor() + 1);
        KubernetesClient client = f.client();

        f.by("v" + previous);
        Nodes nodes = Nodes.now(f, 1, 1);
        Driver driver = Driver.instance(f);
        driver.run(nodes, Resources.driverResourcesNow(nodes, 1));
        Builder b = Builder.now(f, driver);
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal();
        b.create(claim, pod);
        b.testPod(pod);

        f.by("update to v" + current);
        f.backend().switchVersion(current);

        // Every restarted kubelet wipes its node's slices, not knowing which drivers ran; the driver publishes again.
        f.by("wait for ResourceSlices");
        Waits.until("one ResourceSlice per node", SLICES_REPUBLISHED)
                .until(driver.getSlices(), hasSize(nodes.nodeNames().size()));

        // the claim and pod prepared by the previous version go
        client.resource(claim).delete();
        client.resource(pod).delete();
        Pods.waitForNotFound(f, pod, f.timeouts().podDelete());

        // another claim and pod, this time on the current version
        claim = b.externalClaim();
        pod = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod);
        b.testPod(pod);

        f.by("downgrade to v" + previous);
        f.backend().switchVersion(previous);

        // Upstream waits here for kube-controller-manager's log to show its caches synced (a workaround for
        // kubernetes#132334); the embedded cluster's switch returns with its controllers running. The deletes are
        // retried as upstream's are, for a client whose connection to the old API server is stale.
        f.by("delete claim and pod after the downgrade");
        ResourceClaim lastClaim = claim;
        Pod lastPod = pod;
        Waits.until("claim deleted after downgrade", f.timeouts().podDelete())
                .ignoreException(KubernetesClientException.class)
                .until(() -> client.resource(lastClaim).delete() != null);
        Waits.until("pod deleted after downgrade", f.timeouts().podDelete())
                .ignoreException(KubernetesClientException.class)
                .until(() -> client.resource(lastPod).delete() != null);
        Pods.waitForNotFound(f, lastPod, f.timeouts().podDelete());
    }
}
