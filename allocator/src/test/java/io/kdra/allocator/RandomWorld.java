package io.kdra.allocator;

import static io.kdra.allocator.Fixtures.claim;
import static io.kdra.allocator.Fixtures.consumes;
import static io.kdra.allocator.Fixtures.counterSet;
import static io.kdra.allocator.Fixtures.device;
import static io.kdra.allocator.Fixtures.deviceClass;
import static io.kdra.allocator.Fixtures.exact;
import static io.kdra.allocator.Fixtures.firstAvailable;
import static io.kdra.allocator.Fixtures.integer;
import static io.kdra.allocator.Fixtures.pool;
import static io.kdra.allocator.Fixtures.request;
import static io.kdra.allocator.Fixtures.slice;
import static io.kdra.allocator.Fixtures.str;
import static io.kdra.allocator.Fixtures.sub;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * Small random clusters and pods for property tests, kept both as API objects and as a plain model that the tests'
 * own oracle checks results against. Models are T1..T3; class {@code gpu} takes any device, {@code tN} model TN.
 */
final class RandomWorld {

    static final List<String> CLASSES = List.of("gpu", "t1", "t2", "t3");
    static final List<String> ATTRIBUTES = List.of("test.example.com/model", "test.example.com/numa");

    /** A device as the oracle sees it; {@code memory} is what it takes from its pool's counter set (0: none). */
    record Dev(String node, String pool, String name, String model, long numa, int memory) {
        DeviceId id() {
            return new DeviceId(Fixtures.DRIVER, pool, name);
        }

        Object attribute(String qualifiedName) {
            return qualifiedName.endsWith("/model") ? model : numa;
        }
    }

    /** One way to satisfy a request: a subrequest (or the request itself, sub == null). */
    record Option(String sub, String className, int count) {}

    record Req(String name, List<Option> options, boolean all) {}

    /** matchAttribute over the named requests (empty: all). */
    record Match(String attribute, List<String> requests) {}

    record PodClaim(String name, List<Req> requests, List<Match> constraints) {}

    final Random random;
    final List<String> nodes = new ArrayList<>();
    final List<Dev> devices = new ArrayList<>();
    /** Counter set size per pool; pools without counters are absent. */
    final Map<String, Integer> memoryPerPool = new java.util.HashMap<>();
    final List<ResourceSlice> slices = new ArrayList<>();
    final List<DeviceClass> classes = new ArrayList<>();

    RandomWorld(long seed, int nodeCount, int maxDevicesPerNode, boolean counters) {
        // Consecutive seeds give correlated first values in java.util.Random; scramble them first.
        random = new Random(new SplittableRandom(seed).nextLong());
        classes.add(deviceClass("gpu"));
        for (int t = 1; t <= 3; t++) {
            classes.add(deviceClass("t" + t, "device.attributes[\"test.example.com\"].model == \"T" + t + "\""));
        }
        for (int n = 0; n < nodeCount; n++) {
            String node = "node-" + n;
            String poolName = "pool-" + n;
            nodes.add(node);
            boolean withCounters = counters && random.nextBoolean();
            ResourceSliceBuilder deviceSlice = slice(poolName + "-devices", poolName, node);
            int count = 1 + random.nextInt(maxDevicesPerNode);
            for (int d = 0; d < count; d++) {
                Dev dev = new Dev(node, poolName, "d" + d, "T" + (1 + random.nextInt(3)), random.nextInt(2),
                        withCounters ? 1 + random.nextInt(2) : 0);
                devices.add(dev);
                DeviceBuilder device = device(dev.name()).addToAttributes("model", str(dev.model()))
                        .addToAttributes("numa", integer(dev.numa()));
                if (withCounters) {
                    device.addToConsumesCounters(consumes("gpu-memory", "memory", String.valueOf(dev.memory())));
                }
                deviceSlice.editSpec().addToDevices(device.build()).endSpec();
            }
            if (withCounters) {
                int size = 3 + random.nextInt(4);
                memoryPerPool.put(poolName, size);
                slices.add(pool(slice(poolName + "-counters", poolName, node), 1, 2).editSpec()
                        .addToSharedCounters(counterSet("gpu-memory", "memory", String.valueOf(size))).endSpec()
                        .build());
                pool(deviceSlice, 1, 2);
            }
            slices.add(deviceSlice.build());
        }
    }

    /** A pod with one or two claims of one or two requests each, some with alternatives and constraints. */
    List<PodClaim> pod(String podName, boolean allowAll) {
        List<PodClaim> claims = new ArrayList<>();
        int claimCount = 1 + random.nextInt(2);
        for (int c = 0; c < claimCount; c++) {
            List<Req> requests = new ArrayList<>();
            int requestCount = 1 + random.nextInt(2);
            for (int r = 0; r < requestCount; r++) {
                String name = "r" + r;
                if (allowAll && random.nextInt(6) == 0) {
                    requests.add(new Req(name, List.of(new Option(null, randomClass(), 0)), true));
                } else if (random.nextInt(3) == 0) {
                    requests.add(new Req(name, List.of(new Option("a", randomClass(), 1 + random.nextInt(2)),
                            new Option("b", randomClass(), 1)), false));
                } else {
                    requests.add(new Req(name, List.of(new Option(null, randomClass(), 1 + random.nextInt(2))),
                            false));
                }
            }
            List<Match> constraints = new ArrayList<>();
            if (random.nextInt(3) == 0) {
                List<String> covered = random.nextBoolean() ? List.of() : List.of(requests.get(0).name());
                constraints.add(new Match(ATTRIBUTES.get(random.nextInt(2)), covered));
            }
            claims.add(new PodClaim(podName + "-c" + c, requests, constraints));
        }
        return claims;
    }

    private String randomClass() {
        return CLASSES.get(random.nextInt(CLASSES.size()));
    }

    static List<ResourceClaim> toClaims(List<PodClaim> pod) {
        List<ResourceClaim> claims = new ArrayList<>();
        for (PodClaim podClaim : pod) {
            List<DeviceRequest> requests = new ArrayList<>();
            for (Req req : podClaim.requests()) {
                if (req.all()) {
                    requests.add(request(req.name(), Fixtures.exactly(req.options().get(0).className())
                            .withAllocationMode("All")));
                } else if (req.options().get(0).sub() == null) {
                    Option option = req.options().get(0);
                    requests.add(exact(req.name(), option.className(), option.count()));
                } else {
                    List<DeviceSubRequest> subs = new ArrayList<>();
                    for (Option option : req.options()) {
                        subs.add(sub(option.sub(), option.className(), option.count()));
                    }
                    requests.add(firstAvailable(req.name(), subs.toArray(new DeviceSubRequest[0])));
                }
            }
            ResourceClaimBuilder claim = claim(podClaim.name(), requests.toArray(new DeviceRequest[0]));
            for (Match match : podClaim.constraints()) {
                claim.editSpec().editDevices().addToConstraints(new DeviceConstraintBuilder()
                        .withMatchAttribute(match.attribute()).withRequests(match.requests()).build())
                        .endDevices().endSpec();
            }
            claims.add(claim.build());
        }
        return claims;
    }

    static boolean classMatches(String className, Dev device) {
        return className.equals("gpu") || className.equals("t" + device.model().substring(1));
    }
}
