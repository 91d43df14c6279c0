package io.kdra.framework;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kdra.kube.client.Informers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes a spec deploys its driver to (upstream's {@code utils.Nodes}): between {@code min} and {@code max} ready,
 * schedulable nodes, sorted by name. With fewer than {@code min} the spec is skipped with
 * {@code "<n> ready nodes required, only have <m>"}. While the spec runs, a watcher checks every ResourceClaim of the
 * namespace: an allocated claim without a finalizer fails the spec.
 */
public final class Nodes {

    private static final Logger LOG = LoggerFactory.getLogger(Nodes.class);

    private final Framework framework;
    private final int min;
    private final int max;
    private int numReservedNodes;
    private List<String> nodeNames = List.of();
    private List<String> extraNodeNames = List.of();
    private Path tempDirectory;

    private Nodes(Framework framework, int min, int max) {
        if (min < 1 || max < min) {
            throw new IllegalArgumentException("need 1 <= min <= max, got min " + min + ", max " + max);
        }
        this.framework = framework;
        this.min = min;
        this.max = max;
    }

    /** Picks the nodes before each spec (upstream's {@code NewNodes}). */
    public static Nodes create(Framework framework, int min, int max) {
        Nodes nodes = new Nodes(framework, min, max);
        framework.beforeEach("select nodes", nodes::init);
        return nodes;
    }

    /** Picks the nodes now, inside a spec (upstream's {@code NewNodesNow}). */
    public static Nodes now(Framework framework, int min, int max) {
        Nodes nodes = new Nodes(framework, min, max);
        nodes.init();
        return nodes;
    }

    /**
     * Reserves the first {@code n} selected nodes for other uses ({@link #extraNodeNames()}); set it before the
     * spec's setup runs.
     */
    public Nodes numReservedNodes(int n) {
        this.numReservedNodes = n;
        return this;
    }

    /** The nodes the driver runs on, sorted. */
    public List<String> nodeNames() {
        return nodeNames;
    }

    /** The reserved nodes. */
    public List<String> extraNodeNames() {
        return extraNodeNames;
    }

    /** A directory of the test process for this spec, where drivers keep their rolling-update lock files. */
    public Path tempDirectory() {
        return tempDirectory;
    }

    private void init() {
        List<String> ready = framework.client().nodes().list().getItems().stream()
                .filter(Nodes::readyAndSchedulable)
                .map(node -> node.getMetadata().getName())
                .sorted()
                .limit((long) max + numReservedNodes)
                .toList();
        Assumptions.assumeTrue(ready.size() >= min + numReservedNodes,
                (min + numReservedNodes) + " ready nodes required, only have " + ready.size());
        extraNodeNames = List.copyOf(ready.subList(0, numReservedNodes));
        List<String> names = new ArrayList<>(ready.subList(numReservedNodes, ready.size()));
        names.sort(Comparator.naturalOrder());
        nodeNames = List.copyOf(names);
        try {
            tempDirectory = Files.createTempDirectory(Path.of("/tmp"), "kdn");
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a temporary directory", e);
        }
        framework.cleanup("remove " + tempDirectory, () -> deleteRecursively(tempDirectory));
        watchClaims();
        LOG.info("nodes {} (reserved {})", nodeNames, extraNodeNames);
    }

    private void watchClaims() {
        SharedIndexInformer<ResourceClaim> informer = Informers.inform(framework.client()
                .resources(ResourceClaim.class).inNamespace(framework.namespace()), Informers.handler(this::validate, claim -> { }));
        framework.cleanup("stop the ResourceClaim watcher", informer::close);
    }

    private void validate(ResourceClaim claim) {
        if (claim.getStatus() != null && claim.getStatus().getAllocation() != null
                && claim.getMetadata().getFinalizers().isEmpty()) {
            framework.errorf("ResourceClaim %s/%s is allocated but has no finalizer (resourceVersion %s)",
                    claim.getMetadata().getNamespace(), claim.getMetadata().getName(),
                    claim.getMetadata().getResourceVersion());
        }
    }

    private static boolean readyAndSchedulable(Node node) {
        if (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
            return false;
        }
        if (node.getSpec() != null && node.getSpec().getTaints().stream().anyMatch(taint -> "NoSchedule".equals(taint.getEffect())
                || "NoExecute".equals(taint.getEffect()))) {
            return false;
        }
        return node.getStatus() != null && node.getStatus().getConditions().stream()
                .anyMatch(Nodes::isReady);
    }

    private static boolean isReady(NodeCondition condition) {
        return "Ready".equals(condition.getType()) && "True".equals(condition.getStatus());
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (var paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
