package io.kdra.apiserver.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DiscoveryTest {

    /** The order of the Kubernetes API versioning documentation's example. */
    private static final List<String> KUBERNETES_ORDER = List.of("v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1",
            "v12alpha1", "v11alpha2", "foo1", "foo10");

    @Test
    void sortsVersionsByKubernetesPriorityWhateverTheirInputOrder() {
        Random random = new Random(20261203L);
        for (int round = 0; round < 50; round++) {
            List<String> versions = new ArrayList<>(KUBERNETES_ORDER);
            Collections.shuffle(versions, random);
            versions.sort(Discovery::byPriority);
            assertThat(versions).containsExactlyElementsOf(KUBERNETES_ORDER);
        }
    }
}
