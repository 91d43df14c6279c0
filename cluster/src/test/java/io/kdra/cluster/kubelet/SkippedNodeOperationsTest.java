package io.kdra.cluster.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which node operations the kubelet skips for a claim (KEP-5945), and that the checkpoint keeps them. */
class SkippedNodeOperationsTest {

    private static DeviceRequestAllocationResult result(String driver, String device, String... skip) {
        return new DeviceRequestAllocationResultBuilder().withRequest("r").withDriver(driver).withPool("p")
                .withDevice(device).withSkipNodeOperations(skip).build();
    }

    @Test
    void anOperationIsSkippedOnlyIfEveryDeviceOfTheDriverSkipsIt() {
        Map<String, Set<String>> skipped = ClaimInfo.skippedOperations(List.of(
                result("a.example.com", "d0", "*"),
                result("a.example.com", "d1", "NodeUnprepareResources", "SomethingNew"),
                result("b.example.com", "d0", "*"),
                result("c.example.com", "d0")));

        assertThat(skipped).isEqualTo(Map.of(
                "a.example.com", Set.of("NodeUnprepareResources"),
                "b.example.com", Set.of("NodePrepareResources", "NodeUnprepareResources")));
    }

    @Test
    void theCheckpointKeepsTheSkippedOperations(@TempDir Path directory) throws Exception {
        ClaimInfo claim = new ClaimInfo("uid-1", "claim", "ns");
        claim.driverState.put("a.example.com", List.of());
        claim.driverState.put("b.example.com", List.of());
        claim.skippedOperations.put("a.example.com", Set.of("NodeUnprepareResources"));
        Path file = directory.resolve("dra_manager_state");

        Checkpoint.write(file, List.of(claim));
        ClaimInfo read = Checkpoint.read(file).get(0);

        assertThat(read.skips("a.example.com", ClaimInfo.NODE_UNPREPARE_RESOURCES)).isTrue();
        assertThat(read.skips("a.example.com", ClaimInfo.NODE_PREPARE_RESOURCES)).isFalse();
        assertThat(read.skippedOperations).doesNotContainKey("b.example.com");
        assertThat(Files.readString(file)).contains("SkipNodeOperations");
    }
}
