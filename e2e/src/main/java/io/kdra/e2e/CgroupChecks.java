package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HostPathVolumeSourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.kdra.framework.Builder;
import io.kdra.framework.Framework;
import io.kdra.framework.Pods;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The checks of upstream's {@code test/e2e/common/node/framework/cgroups}: cgroup values and {@code oom_score_adj}
 * read through exec in the pod's containers and compared with what the kubelet must have set. The pod's cgroup is
 * found below the node's {@code /sys/fs/cgroup}, mounted into the first container at {@code /sysfscgroup}; a
 * container reads its own cgroup at {@code /sys/fs/cgroup}.
 *
 * <p>Upstream tells cgroup v2 from v1 by the output of {@code mount -t cgroup2}; this port reads the v2 marker file
 * {@code cgroup.controllers} instead, which does not depend on the mount table of the machine the containers run on.
 * Only the v2 files are checked.
 */
final class CgroupChecks {

    static final String SLEEP_LOOP = "trap exit TERM; while true; do sleep 1; done";
    private static final String CGROUP_FS = "/sys/fs/cgroup";
    private static final String CGROUP_VOLUME = "sysfscgroup";
    private static final String CGROUP_MOUNT = "/sysfscgroup";
    private static final long QUOTA_PERIOD = 100_000;
    private static final int READ_ATTEMPTS = 3;

    private CgroupChecks() {}

    /** Requests and limits as upstream's {@code cgroups.ContainerResources} writes them; null or empty is unset. */
    record ContainerResources(String cpuReq, String cpuLim, String memReq, String memLim) {

        ResourceRequirements requirements() {
            ResourceRequirements requirements = new ResourceRequirements();
            Map<String, Quantity> requests = new HashMap<>();
            Map<String, Quantity> limits = new HashMap<>();
            put(requests, "cpu", cpuReq);
            put(requests, "memory", memReq);
            put(limits, "cpu", cpuLim);
            put(limits, "memory", memLim);
            requirements.setRequests(requests.isEmpty() ? null : requests);
            requirements.setLimits(limits.isEmpty() ? null : limits);
            return requirements;
        }

        private static void put(Map<String, Quantity> list, String name, String value) {
            if (value != null && !value.isEmpty()) {
                list.put(name, new Quantity(value));
            }
        }
    }

    /** A busybox container running {@code /bin/sh -c <command>} with these resources (none when null). */
    static Container container(String name, ContainerResources resources, String command) {
        return new ContainerBuilder().withName(name).withImage(Builder.BUSYBOX_IMAGE)
                .withResources(resources == null ? new ResourceRequirements() : resources.requirements())
                .withCommand("/bin/sh").withArgs("-c", command).build();
    }

    /** Mounts the node's {@code /sys/fs/cgroup} into the pod's first container at {@code /sysfscgroup}. */
    static void mountNodeCgroups(Pod pod) {
        pod.getSpec().getVolumes().add(new VolumeBuilder().withName(CGROUP_VOLUME)
                .withHostPath(new HostPathVolumeSourceBuilder().withPath(CGROUP_FS).build()).build());
        pod.getSpec().getContainers().get(0).getVolumeMounts().add(new VolumeMountBuilder().withName(CGROUP_VOLUME)
                .withMountPath(CGROUP_MOUNT).build());
    }

    /** Whether the container sees a cgroup v2 hierarchy at {@code /sys/fs/cgroup}. */
    static boolean onCgroupV2(Framework f, Pod pod, String container) throws Exception {
        return Pods.exec(f, pod, container, "/bin/sh", "-c", "test -f " + CGROUP_FS + "/cgroup.controllers")
                .exitCode() == 0;
    }

    /** The pod's cgroup CPU weight, CPU limit and memory limit are those of the expected resources. */
    static void verifyPodCgroups(Framework f, Pod pod, ContainerResources expected) throws Exception {
        assertThat(onCgroupV2(f, pod, pod.getSpec().getContainers().get(0).getName())).as("cgroup v2").isTrue();
        String podCgroup = podCgroupPath(f, pod);
        ResourceRequirements resources = expected.requirements();
        String first = pod.getSpec().getContainers().get(0).getName();
        List<String> errors = new ArrayList<>();
        check(errors, "pod cgroup cpu weight", () -> verifyCgroupValue(f, pod, first, podCgroup + "/cpu.weight",
                expectedCpuWeights(resources)));
        check(errors, "pod cgroup cpu limit", () -> verifyCgroupValue(f, pod, first, podCgroup + "/cpu.max",
                expectedCpuLimits(resources)));
        String memory = expectedMemoryLimit(resources);
        if (!memory.equals("0")) {
            check(errors, "pod cgroup memory limit", () -> verifyCgroupValue(f, pod, first,
                    podCgroup + "/memory.max", List.of(memory)));
        }
        assertThat(errors).as("pod cgroup values").isEmpty();
    }

    /** The container's own cgroup holds the expected memory limit, CPU limit and CPU weight. */
    static void verifyContainerCgroupValues(Framework f, Pod pod, String container, ResourceRequirements expected)
            throws Exception {
        List<String> errors = new ArrayList<>();
        String memory = expectedMemoryLimit(expected);
        if (!memory.equals("0")) {
            check(errors, "memory limit", () -> verifyCgroupValue(f, pod, container, CGROUP_FS + "/memory.max",
                    List.of(memory)));
        }
        check(errors, "cpu limit", () -> verifyCgroupValue(f, pod, container, CGROUP_FS + "/cpu.max",
                expectedCpuLimits(expected)));
        check(errors, "cpu request", () -> verifyCgroupValue(f, pod, container, CGROUP_FS + "/cpu.weight",
                expectedCpuWeights(expected)));
        assertThat(errors).as("cgroup values of container " + container).isEmpty();
    }

    /** The pod's cgroup limits hugepages of this size ({@code 2MB}) to the expected bytes. */
    static void verifyPodHugepagesLimit(Framework f, Pod pod, String pageSize, String expected) throws Exception {
        String path = podCgroupPath(f, pod) + "/hugetlb." + pageSize + ".max";
        verifyCgroupValue(f, pod, pod.getSpec().getContainers().get(0).getName(), path, List.of(expected));
    }

    /** The container's cgroup limits hugepages of this size ({@code 2MB}) to the expected bytes. */
    static void verifyContainerHugepagesLimit(Framework f, Pod pod, String container, String pageSize,
            String expected) throws Exception {
        verifyCgroupValue(f, pod, container, CGROUP_FS + "/hugetlb." + pageSize + ".max", List.of(expected));
    }

    /** The {@code oom_score_adj} of the container's first process. */
    static void verifyOomScoreAdjValue(Framework f, Pod pod, String container, String expected) throws Exception {
        Pods.ExecResult result = Pods.exec(f, pod, container, "/bin/sh", "-c", "cat /proc/1/oom_score_adj");
        assertThat(result.exitCode()).as("reading oom_score_adj of container %s: %s", container, result.stderr())
                .isZero();
        assertThat(result.stdout().strip()).as("oom_score_adj of container " + container).isEqualTo(expected);
    }

    /** upstream's {@code computeExpectedOomScoreAdj}: the Burstable score of a memory request in Mi. */
    static long expectedBurstableOomScoreAdj(long memoryRequestMi, long nodeMemoryBytes) {
        long score = 1000 - (1000 * memoryRequestMi * 1024 * 1024 / nodeMemoryBytes);
        return Math.max(score, 2);
    }

    /** Finds the pod's cgroup directory by its UID, as the cgroupfs and systemd drivers name it. */
    private static String podCgroupPath(Framework f, Pod pod) throws Exception {
        String uid = pod.getMetadata().getUid();
        String command = String.format("find %s -name '*%s*' -o -name '*%s*'", CGROUP_MOUNT, uid.replace('-', '_'),
                uid);
        Pods.ExecResult result = Pods.exec(f, pod, pod.getSpec().getContainers().get(0).getName(), "/bin/sh", "-c",
                command);
        String path = result.stdout().strip();
        assertThat(path).as("pod cgroup directory found by %s (stderr %s)", command, result.stderr()).isNotEmpty();
        return path.lines().findFirst().orElseThrow();
    }

    /** Reads the first line of a cgroup file in the container (three attempts) and expects one of the values. */
    private static void verifyCgroupValue(Framework f, Pod pod, String container, String path, List<String> expected)
            throws Exception {
        Pods.ExecResult result = null;
        for (int attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
            result = Pods.exec(f, pod, container, "/bin/sh", "-c", "head -n 1 " + path);
            if (result.exitCode() == 0) {
                break;
            }
        }
        assertThat(result.exitCode()).as("reading %s in container %s: %s", path, container, result.stderr()).isZero();
        assertThat(result.stdout().strip()).as("value of cgroup %s for container %s", path, container)
                .isIn(expected);
    }

    /** CPU weights for the request (or the limit without one), by runc's old and current conversion of shares. */
    private static List<String> expectedCpuWeights(ResourceRequirements resources) {
        long request = milli(resources.getRequests(), "cpu");
        long limit = milli(resources.getLimits(), "cpu");
        long shares = milliCpuToShares(request == 0 && limit != 0 ? limit : request);
        long old = 1 + ((shares - 2) * 9999) / 262142;
        return List.of(Long.toString(old), Long.toString(sharesToWeight(shares)));
    }

    /** {@code cpu.max} for the limit, and for the limit rounded up to 10m (runc rounds some quotas). */
    private static List<String> expectedCpuLimits(ResourceRequirements resources) {
        long limit = milli(resources.getLimits(), "cpu");
        List<String> values = new ArrayList<>();
        values.add((limit == 0 ? "max" : Long.toString(quota(limit))) + " " + QUOTA_PERIOD);
        if (limit % 10 != 0) {
            values.add(quota((limit / 10 + 1) * 10) + " " + QUOTA_PERIOD);
        }
        return values;
    }

    private static String expectedMemoryLimit(ResourceRequirements resources) {
        Quantity limit = resources.getLimits() == null ? null : resources.getLimits().get("memory");
        return limit == null ? "0" : Quantity.getAmountInBytes(limit).toBigInteger().toString();
    }

    private static long milli(Map<String, Quantity> list, String name) {
        Quantity quantity = list == null ? null : list.get(name);
        if (quantity == null) {
            return 0;
        }
        return Quantity.getAmountInBytes(quantity).movePointRight(3).setScale(0, RoundingMode.CEILING).longValue();
    }

    private static long milliCpuToShares(long milliCpu) {
        if (milliCpu == 0) {
            return 2;
        }
        return Math.max(2, Math.min(262144, milliCpu * 1024 / 1000));
    }

    private static long quota(long milliCpu) {
        return Math.max(1000, milliCpu * QUOTA_PERIOD / 1000);
    }

    /** runc's current conversion of shares to cgroup v2 weight. */
    private static long sharesToWeight(long shares) {
        if (shares <= 2) {
            return 1;
        }
        if (shares >= 262144) {
            return 10000;
        }
        double log = Math.log(shares) / Math.log(2);
        if (Long.bitCount(shares) == 1) {
            log = Long.numberOfTrailingZeros(shares);
        }
        double exponent = (log * log + 125 * log) / 612.0 - 7.0 / 34.0;
        return (long) Math.ceil(Math.pow(10, exponent));
    }

    /** Quantities compare by value, as Go's {@code BeComparableTo} on resource lists. */
    static boolean sameQuantities(Map<String, Quantity> got, Map<String, Quantity> want) {
        Map<String, Quantity> a = got == null ? Map.of() : got;
        Map<String, Quantity> b = want == null ? Map.of() : want;
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (String name : a.keySet()) {
            BigDecimal x = Quantity.getAmountInBytes(a.get(name));
            BigDecimal y = Quantity.getAmountInBytes(b.get(name));
            if (x.compareTo(y) != 0) {
                return false;
            }
        }
        return true;
    }

    private interface Check {
        void run() throws Exception;
    }

    private static void check(List<String> errors, String what, Check check) throws Exception {
        try {
            check.run();
        } catch (AssertionError e) {
            errors.add(what + ": " + e.getMessage());
        }
    }
}
