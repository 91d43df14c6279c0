package io.kdra.framework.plan;

import io.kdra.framework.ClusterRequirements;
import io.kdra.framework.FrameworkExtensionAccess;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Records the cluster requirements a spec without labels of its own would get while the plan runs. */
class RequirementsProbeSample {

    static volatile ClusterRequirements seen;

    @Test
    void probe() {
        seen = FrameworkExtensionAccess.requirements(Set.of());
    }
}
