package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.RealSliceWipingDelay;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group D: specs that deploy their drivers themselves, among them driver updates. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class KubeletDriverUpdateSpecs {

    final Framework f = Framework.create("dra");

    @Test
    @DisplayName("runs pod after driver starts")
    void runsPodAfterDriverStarts() throws Exception {
        Nodes nodes = Nodes.now(f, 1, 4);
        Driver driver = Driver.instance(f);
        Builder b = Builder.now(f, driver);

        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod);
        // no devices yet
        Pods.waitForUnschedulable(f, pod);

        driver.run(nodes, Resources.driverResourcesNow(nodes, 1));
        b.testPod(pod);

        // the driver is torn down before the builder's cleanup, so the pod goes first
        b.deletePodAndWaitForNotFound(pod);
    }

    // Seamless upgrades came with Kubernetes 1.33.
    @Test
    @DisplayName("rolling update [KubeletMinVersion:1.33]")
    @Tag("KubeletMinVersion:1.33")
    void rollingUpdate() throws Exception {
        rollingUpdate(null);
    }

    // Regression test for kubernetes#139166: rolling-update registration sockets must stay within the AF_UNIX path
    // limit for driver names longer than 28 characters.
    @Test
    @DisplayName("rolling update with long driver name [KubeletMinVersion:1.33]")
    @Tag("KubeletMinVersion:1.33")
    void rollingUpdateWithLongDriverName() throws Exception {
        rollingUpdate(Driver.LONG_ROLLING_UPDATE_DRIVER_NAME);
    }

    private void rollingUpdate(String driverName) throws Exception {
        Nodes nodes = Nodes.now(f, 1, 1);
        Driver oldDriver = named(Driver.instance(f), driverName).instanceSuffix("-old").rollingUpdate(true);
        oldDriver.run(nodes, Resources.driverResourcesNow(nodes, 1));
        // one ResourceSlice per node
        Waits.until("one ResourceSlice per node", f.timeouts().podStartShort())
                .until(oldDriver.getSlices(), hasSize(nodes.nodeNames().size()));
        List<ResourceSlice> initialSlices = oldDriver.getSlices().call();

        // same driver name, other sockets because of the rolling update
        Driver newDriver = named(Driver.instance(f), driverName).instanceSuffix("-new").rollingUpdate(true);
        newDriver.run(nodes, Resources.driverResourcesNow(nodes, 1));
        oldDriver.tearDown();

        runPodAndCheckSlices(oldDriver, initialSlices);
    }

    private static Driver named(Driver driver, String name) {
        return name == null ? driver : driver.name(name);
    }

    @Test
    @DisplayName("failed update [KubeletMinVersion:1.33]")
    @Tag("KubeletMinVersion:1.33")
    void failedUpdate() throws Exception {
        Nodes nodes = Nodes.now(f, 1, 1);
        Driver oldDriver = Driver.instance(f).instanceSuffix("-old").rollingUpdate(true);
        oldDriver.run(nodes, Resources.driverResourcesNow(nodes, 1));
        Waits.until("one ResourceSlice per node", f.timeouts().podStartShort())
                .until(oldDriver.getSlices(), hasSize(nodes.nodeNames().size()));
        List<ResourceSlice> initialSlices = oldDriver.getSlices().call();

        Driver newDriver = Driver.instance(f).instanceSuffix("-new").rollingUpdate(true)
                .expectResourceSliceRemoval(false);
        newDriver.run(nodes, Resources.driverResourcesNow(nodes, 1));
        // the new instance fails; the kubelet still has the old one
        newDriver.tearDown();

        runPodAndCheckSlices(oldDriver, initialSlices);
    }

    /** A pod runs with either instance; the slices are exactly those from before the update. */
    private void runPodAndCheckSlices(Driver driver, List<ResourceSlice> initialSlices) throws Exception {
        Builder b = Builder.now(f, driver);
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod);
        b.testPod(pod);

        assertThat(driver.getSlices().call()).as("ResourceSlices after the update").isEqualTo(initialSlices);

        // the drivers are torn down before the builder's cleanup, so the pod goes first
        b.deletePodAndWaitForNotFound(pod);
    }

    @Test
    @DisplayName("sequential update with pods replacing each other [KubeletMinVersion:1.33] [Slow]")
    @Tag("KubeletMinVersion:1.33")
    @Tag("Slow")
    // The slices survive the update only because the kubelet waits 30 s before wiping them.
    @RealSliceWipingDelay
    void sequentialUpdateWithPodsReplacingEachOther() throws Exception {
        Nodes nodes = Nodes.now(f, 1, 1);

        // same driver name, same socket paths
        Driver oldDriver = Driver.instance(f).instanceSuffix("-old");
        oldDriver.run(nodes, Resources.driverResourcesNow(nodes, 1));
        Waits.until("driver should have published ResourceSlices, got none", f.timeouts().podStartShort())
                .until(oldDriver.getSlices(), not(empty()));
        List<ResourceSlice> oldSlices = oldDriver.getSlices().call();

        // Pods never run side by side, as a DaemonSet updates its pods with maxSurge 0.
        f.by("reinstall driver");
        long start = System.nanoTime();
        oldDriver.tearDown();
        Driver newDriver = Driver.instance(f).instanceSuffix("-new");
        newDriver.run(nodes, Resources.driverResourcesNow(nodes, 1));
        Duration updateDuration = Duration.ofNanos(System.nanoTime() - start);

        // the builder behaves the same for both instances
        Builder b = Builder.now(f, oldDriver);
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod);
        b.testPod(pod);

        // After a downtime longer than the kubelet's wiping delay (30 s) the slices are gone, so only a quick update
        // is checked.
        if (updateDuration.compareTo(Duration.ofSeconds(25)) <= 0) {
            f.by("Checking resource slices after downtime of " + updateDuration);
            assertThat(oldDriver.getSlices().call())
                    .as("Old slice should have survived a downtime of %s.", updateDuration)
                    .containsExactlyInAnyOrderElementsOf(oldSlices);
        } else {
            f.by("Not checking resource slices, downtime was too long with " + updateDuration);
        }

        // the drivers are torn down before the builder's cleanup, so the pod goes first
        b.deletePodAndWaitForNotFound(pod);

        f.by("uninstalling driver and waiting for ResourceSlice wiping");
        newDriver.tearDown();
        newDriver.isGone();
    }
}
