package com.example.color;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.greaterThan;

import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.MethodInstance;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The color driver on kdra's embedded cluster, written as upstream's DRA specs are. */
@DraSpec
@DisplayName("color driver")
class ColorDriverTest {

    private static final int DEVICES = 4;

    final Framework f = Framework.create("color");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.driverResources(DEVICES))
            .plugin((driverName, nodeName, node) -> new ColorDriver(driverName, node.cdiFiles(), DEVICES));
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("a pod gets the environment of its device")
    void aPodGetsItsDevice() throws Exception {
        Builder.PodWithTemplate inline = b.podInline();
        b.create(inline.pod(), inline.template());

        Pods.waitForRunning(f, inline.pod());
        String container = inline.pod().getSpec().getContainers().get(0).getName();
        assertThat(Pods.exec(f, inline.pod(), container, "env").stdout()).containsPattern("(?m)^COLOR=device-0[0-3]$");
    }

    @Test
    @DisplayName("a failed NodePrepareResources is retried")
    void aFailedPrepareIsRetried() throws Exception {
        String node = driver.nodeNames().get(0);
        MethodInstance prepare = new MethodInstance(node, MethodInstance.NODE_PREPARE_RESOURCES_V1);
        driver.fail(prepare, true);                                    // every prepare fails, and is counted
        Builder.PodWithTemplate inline = b.podInline();
        b.create(inline.pod(), inline.template());
        Waits.until("NodePrepareResources called", Duration.ofMinutes(1))
                .until(() -> driver.callCount(prepare), greaterThan(0L));
        assertThat(Pods.phase(f, inline.pod()).call()).isEqualTo(Pods.PENDING);

        driver.fail(prepare, false);                                   // the kubelet's next retry succeeds
        Pods.waitForRunning(f, inline.pod());
    }
}
