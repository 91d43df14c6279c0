package io.kdra.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.kdra.allocator.RandomWorld.Dev;
import io.kdra.allocator.RandomWorld.Match;
import io.kdra.allocator.RandomWorld.Option;
import io.kdra.allocator.RandomWorld.PodClaim;
import io.kdra.allocator.RandomWorld.Req;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Properties checked on random clusters and pods, one test per seed (a failing seed reproduces exactly). Results are
 * checked against this class's own model of the rules, and feasibility against a brute-force search.
 */
class AllocatorPropertiesTest {

    private static final AllocatorFeatures FEATURES =
            AllocatorFeatures.KUBERNETES_1_34.withGate("DRAPartitionableDevices", true);

    private final StructuredAllocator allocator = new StructuredAllocator(Selectors.compilerFor(FEATURES), FEATURES);

    @TestFactory
    Stream<DynamicTest> aSequenceOfPodsNeverSharesADeviceAndEveryResultFollowsTheRules() {
        return seeds(1, 60).mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> {
            RandomWorld world = new RandomWorld(seed, 4, 5, true);
            Inventory inventory = allocator.inventory(world.slices, List.of());
            AllocatedState allocated = AllocatedState.NONE;
            Set<DeviceId> everAllocated = new HashSet<>();
            for (int p = 0; p < 12; p++) {
                List<PodClaim> pod = world.pod("pod" + p, true);
                for (String node : world.nodes) {
                    AllocationOutcome outcome;
                    try {
                        outcome = allocator.allocate(RandomWorld.toClaims(pod), Fixtures.node(node), inventory,
                                classes(world), allocated);
                    } catch (AllocationException e) {
                        // Upstream refuses an All request whose devices break a constraint; the pod stays pending.
                        assertThat(e).hasMessageEndingWith("because a claim constraint would not be satisfied");
                        assertThat(constrainsAllMode(pod)).isTrue();
                        break;
                    }
                    if (outcome instanceof AllocationOutcome.Allocated done) {
                        assertValid(world, pod, done.results(), node, allocated);
                        for (AllocationResult result : done.results()) {
                            for (DeviceRequestAllocationResult device : result.getDevices().getResults()) {
                                assertThat(everAllocated.add(id(device))).as("%s allocated twice", id(device)).isTrue();
                            }
                        }
                        allocated = allocated.plus(done.results());
                        break;
                    }
                }
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> allModeTakesEveryMatchingFreeDevice() {
        return seeds(1, 80).mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> {
            RandomWorld world = new RandomWorld(seed, 2, 6, false);
            Set<DeviceId> taken = randomlyTaken(world);
            String className = RandomWorld.CLASSES.get(world.random.nextInt(RandomWorld.CLASSES.size()));
            List<PodClaim> pod = List.of(new PodClaim("c", List.of(new Req("r", List.of(new Option(null, className,
                    0)), true)), List.of()));

            AllocationOutcome outcome = allocate(world, pod, "node-0", taken);

            List<Dev> matching = world.devices.stream()
                    .filter(d -> d.node().equals("node-0") && RandomWorld.classMatches(className, d))
                    .collect(Collectors.toList());
            boolean allFree = matching.stream().noneMatch(d -> taken.contains(d.id()));
            assertThat(outcome instanceof AllocationOutcome.Allocated)
                    .as("allocated iff some devices match and all of them are free: %s", Scenario.render(outcome))
                    .isEqualTo(!matching.isEmpty() && allFree);
            if (outcome instanceof AllocationOutcome.Allocated done) {
                assertThat(done.results().get(0).getDevices().getResults()).extracting(AllocatorPropertiesTest::id)
                        .containsExactlyInAnyOrderElementsOf(matching.stream().map(Dev::id).toList());
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> theAllocatorFindsASolutionWheneverBruteForceDoes() {
        return seeds(1, 400).mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> {
            RandomWorld world = new RandomWorld(seed, 1, 6, true);
            Set<DeviceId> taken = randomlyTaken(world);
            List<PodClaim> pod = world.pod("pod", false);

            AllocationOutcome outcome = allocate(world, pod, "node-0", taken);

            boolean feasible = new BruteForce(world, pod, "node-0", taken).feasible();
            assertThat(outcome instanceof AllocationOutcome.Allocated)
                    .as("allocator %s, brute force %s", Scenario.render(outcome), feasible)
                    .isEqualTo(feasible);
            if (outcome instanceof AllocationOutcome.Allocated done) {
                assertValid(world, pod, done.results(), "node-0", AllocatedState.of(taken));
            }
        }));
    }

    private AllocationOutcome allocate(RandomWorld world, List<PodClaim> pod, String node, Set<DeviceId> taken)
            throws AllocationException {
        return allocator.allocate(RandomWorld.toClaims(pod), Fixtures.node(node),
                allocator.inventory(world.slices, List.of()), classes(world), AllocatedState.of(taken));
    }

    private static LongStream seeds(long first, long last) {
        return LongStream.rangeClosed(first, last);
    }

    private static Set<DeviceId> randomlyTaken(RandomWorld world) {
        Set<DeviceId> taken = new HashSet<>();
        for (Dev device : world.devices) {
            if (world.random.nextInt(6) == 0) {
                taken.add(device.id());
            }
        }
        return taken;
    }

    private static Map<String, DeviceClass> classes(RandomWorld world) {
        return world.classes.stream().collect(Collectors.toMap(c -> c.getMetadata().getName(), c -> c));
    }

    private static DeviceId id(DeviceRequestAllocationResult result) {
        return new DeviceId(result.getDriver(), result.getPool(), result.getDevice());
    }

    /** Checks results against the rules: free, on the node, right class and count, constraints and counters hold. */
    private static void assertValid(RandomWorld world, List<PodClaim> pod, List<AllocationResult> results, String node,
            AllocatedState before) {
        Map<DeviceId, Dev> byId = world.devices.stream().collect(Collectors.toMap(Dev::id, d -> d));
        Set<DeviceId> used = new HashSet<>();
        assertThat(results).hasSize(pod.size());
        for (int c = 0; c < pod.size(); c++) {
            List<DeviceRequestAllocationResult> claimResults = results.get(c).getDevices().getResults();
            List<Pick> picks = new ArrayList<>();
            for (DeviceRequestAllocationResult result : claimResults) {
                Dev device = byId.get(id(result));
                assertThat(device.node()).isEqualTo(node);
                assertThat(before.devices()).doesNotContain(device.id());
                assertThat(used.add(device.id())).as("%s twice in one pod", device.id()).isTrue();
                picks.add(new Pick(result.getRequest(), device));
            }
            for (Req req : pod.get(c).requests()) {
                List<Pick> forRequest = picks.stream().filter(p -> p.requestName().equals(req.name())
                        || p.requestName().startsWith(req.name() + "/")).toList();
                assertThat(forRequest).as("results of %s", req.name()).isNotEmpty();
                String chosenSub = forRequest.get(0).requestName().contains("/")
                        ? forRequest.get(0).requestName().substring(req.name().length() + 1) : null;
                Option option = req.options().stream().filter(o -> java.util.Objects.equals(o.sub(), chosenSub))
                        .findFirst().orElseThrow();
                if (!req.all()) {
                    assertThat(forRequest).hasSize(option.count());
                }
                for (Pick pick : forRequest) {
                    assertThat(pick.requestName()).isEqualTo(chosenSub == null ? req.name() : req.name() + "/"
                            + chosenSub);
                    assertThat(RandomWorld.classMatches(option.className(), pick.device())).isTrue();
                }
            }
            for (Match match : pod.get(c).constraints()) {
                Set<Object> values = picks.stream().filter(p -> covers(match, p.requestName()))
                        .map(p -> p.device().attribute(match.attribute())).collect(Collectors.toSet());
                assertThat(values).as("values of %s", match.attribute()).hasSizeLessThanOrEqualTo(1);
            }
        }
        Map<String, Integer> memory = new HashMap<>();
        for (Dev device : world.devices) {
            if (used.contains(device.id()) || before.devices().contains(device.id())) {
                memory.merge(device.pool(), device.memory(), Integer::sum);
            }
        }
        for (Dev device : world.devices) {
            if (used.contains(device.id()) && world.memoryPerPool.containsKey(device.pool())) {
                assertThat(memory.get(device.pool())).isLessThanOrEqualTo(world.memoryPerPool.get(device.pool()));
            }
        }
    }

    private static boolean constrainsAllMode(List<PodClaim> pod) {
        return pod.stream().anyMatch(claim -> claim.constraints().stream().anyMatch(match -> claim.requests().stream()
                .anyMatch(req -> req.all() && covers(match, req.name()))));
    }

    static boolean covers(Match match, String requestName) {
        String base = requestName.contains("/") ? requestName.substring(0, requestName.indexOf('/')) : requestName;
        return match.requests().isEmpty() || match.requests().contains(base) || match.requests().contains(requestName);
    }

    record Pick(String requestName, Dev device) {}

    /** Tries every choice of subrequest and every set of free devices for every request. */
    private static final class BruteForce {
        private record Slot(int claim, Req request) {}

        private final RandomWorld world;
        private final List<PodClaim> pod;
        private final List<Dev> free;
        private final Set<DeviceId> taken;
        private final List<Slot> slots = new ArrayList<>();
        private final List<List<Pick>> picks = new ArrayList<>();

        BruteForce(RandomWorld world, List<PodClaim> pod, String node, Set<DeviceId> taken) {
            this.world = world;
            this.pod = pod;
            this.taken = taken;
            this.free = world.devices.stream().filter(d -> d.node().equals(node) && !taken.contains(d.id())).toList();
            for (int c = 0; c < pod.size(); c++) {
                picks.add(new ArrayList<>());
                for (Req req : pod.get(c).requests()) {
                    slots.add(new Slot(c, req));
                }
            }
        }

        boolean feasible() {
            return search(0, new HashSet<>());
        }

        private boolean search(int slotIndex, Set<Dev> used) {
            if (slotIndex == slots.size()) {
                return constraintsHold() && countersHold(used);
            }
            Slot slot = slots.get(slotIndex);
            for (Option option : slot.request().options()) {
                String name = option.sub() == null ? slot.request().name() : slot.request().name() + "/" + option.sub();
                List<Dev> candidates = free.stream().filter(d -> !used.contains(d)
                        && RandomWorld.classMatches(option.className(), d)).toList();
                if (choose(slotIndex, name, candidates, 0, option.count(), used)) {
                    return true;
                }
            }
            return false;
        }

        private boolean choose(int slotIndex, String name, List<Dev> candidates, int from, int remaining,
                Set<Dev> used) {
            if (remaining == 0) {
                return search(slotIndex + 1, used);
            }
            List<Pick> claimPicks = picks.get(slots.get(slotIndex).claim());
            for (int i = from; i < candidates.size(); i++) {
                Dev device = candidates.get(i);
                used.add(device);
                claimPicks.add(new Pick(name, device));
                boolean found = choose(slotIndex, name, candidates, i + 1, remaining - 1, used);
                claimPicks.remove(claimPicks.size() - 1);
                used.remove(device);
                if (found) {
                    return true;
                }
            }
            return false;
        }

        private boolean constraintsHold() {
            for (int c = 0; c < pod.size(); c++) {
                for (Match match : pod.get(c).constraints()) {
                    long values = picks.get(c).stream().filter(p -> covers(match, p.requestName()))
                            .map(p -> p.device().attribute(match.attribute())).distinct().count();
                    if (values > 1) {
                        return false;
                    }
                }
            }
            return true;
        }

        private boolean countersHold(Set<Dev> used) {
            for (Map.Entry<String, Integer> pool : world.memoryPerPool.entrySet()) {
                int chosen = used.stream().filter(d -> d.pool().equals(pool.getKey())).mapToInt(Dev::memory).sum();
                int before = world.devices.stream().filter(d -> d.pool().equals(pool.getKey())
                        && taken.contains(d.id())).mapToInt(Dev::memory).sum();
                if (chosen > 0 && chosen + before > pool.getValue()) {
                    return false;
                }
            }
            return true;
        }
    }
}
