package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kdra.cluster.EventRecorder;
import io.kdra.kube.client.Informers;
import io.kdra.kube.selection.NodeSelectors;
import io.kdra.kube.taint.PodTolerations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's DaemonSet controller ({@code pkg/controller/daemon}): one pod per node that should run the
 * daemon, placed through the scheduler (the pod's required node affinity is replaced by a {@code metadata.name}
 * field match on its node, so DRA claims are allocated as for any pod).
 *
 * <p>A node should run the daemon when the template's {@code nodeName} (if any), node selector and required node
 * affinity match it and the template tolerates its {@code NoSchedule} and {@code NoExecute} taints, with the
 * tolerations upstream adds to every daemon pod (not-ready and unreachable {@code NoExecute}; disk, memory and PID
 * pressure and unschedulable {@code NoSchedule}; network-unavailable for host-network pods). A node whose only
 * untolerated taints are {@code NoSchedule} keeps a daemon pod it already has. Per sync and node: create the missing
 * pod, delete failed pods (the next sync replaces them), keep only the oldest of several, delete pods from nodes that
 * should not run them and unscheduled pods whose node is gone.
 *
 * <p>The status reports {@code desiredNumberScheduled}, {@code currentNumberScheduled}, {@code numberMisscheduled},
 * {@code numberReady}, {@code numberAvailable} (ready for {@code minReadySeconds}), {@code numberUnavailable},
 * {@code updatedNumberScheduled} and {@code observedGeneration}. Pods carry {@code controller-revision-hash}, a hash
 * of the template, and {@code pod-template-generation}. Template changes are not rolled out: existing pods stay until
 * deleted, and their replacements use the new template (upstream's {@code OnDelete} strategy, whatever the spec's
 * strategy says). ControllerRevisions are not written.
 */
public final class DaemonSetController extends InformerController<DaemonSetController, DaemonSetController.Key> {

    static final String COMPONENT = "daemonset-controller";
    static final String REVISION_HASH_LABEL = "controller-revision-hash";
    static final String TEMPLATE_GENERATION_LABEL = "pod-template-generation";

    private static final Logger LOG = LoggerFactory.getLogger(DaemonSetController.class);
    /** The tolerations upstream's {@code AddOrUpdateDaemonPodTolerations} gives every daemon pod. */
    private static final List<Toleration> DAEMON_TOLERATIONS = List.of(
            toleration("node.kubernetes.io/not-ready", "NoExecute"),
            toleration("node.kubernetes.io/unreachable", "NoExecute"),
            toleration("node.kubernetes.io/disk-pressure", "NoSchedule"),
            toleration("node.kubernetes.io/memory-pressure", "NoSchedule"),
            toleration("node.kubernetes.io/pid-pressure", "NoSchedule"),
            toleration("node.kubernetes.io/unschedulable", "NoSchedule"));
    private static final Toleration NETWORK_UNAVAILABLE = toleration("node.kubernetes.io/network-unavailable",
            "NoSchedule");

    record Key(String namespace, String name) {}

    /** Whether a node should get a daemon pod, and whether one it has may stay. */
    private record Placement(boolean shouldRun, boolean shouldContinueRunning) {}

    private final SharedIndexInformer<DaemonSet> daemonSets;
    private final ControlledPods<Key> pods;
    private final SharedIndexInformer<Node> nodes;
    private final EventRecorder events;
    private final PodExpectations<Key> expectations = new PodExpectations<>();

    /** A controller with informers of its own. */
    public DaemonSetController(KubernetesClient client) {
        this(new SharedInformers(client), true, 1);
    }

    /** A controller on shared informers, started and closed by their owner. */
    public DaemonSetController(SharedInformers informers, int workers) {
        this(informers, false, workers);
    }

    private DaemonSetController(SharedInformers informers, boolean ownsInformers, int workers) {
        super(informers, ownsInformers, COMPONENT, workers);
        this.events = EventRecorder.ownThread(client, COMPONENT);
        this.daemonSets = informers.informer(DaemonSet.class);
        this.nodes = informers.informer(Node.class);
        daemonSets.addEventHandler(Informers.handler(ds -> queue.add(key(ds)), ds -> expectations.forget(key(ds))));
        this.pods = new ControlledPods<>(informers.informer(Pod.class), "DaemonSet", Key::new, expectations, queue);
        nodes.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                enqueueAll();
            }

            @Override
            public void onUpdate(Node oldNode, Node newNode) {
                if (!Objects.equals(oldNode.getMetadata().getLabels(), newNode.getMetadata().getLabels())
                        || !Objects.equals(oldNode.getSpec(), newNode.getSpec())) {
                    enqueueAll();
                }
            }

            @Override
            public void onDelete(Node node, boolean finalStateUnknown) {
                enqueueAll();
            }
        });
    }

    @Override
    public void close() {
        super.close();
        events.close();
    }

    private void enqueueAll() {
        daemonSets.getStore().list().forEach(ds -> queue.add(key(ds)));
    }

    private static Key key(DaemonSet ds) {
        return new Key(ds.getMetadata().getNamespace(), ds.getMetadata().getName());
    }

    @Override
    Duration sync(Key key) {
        DaemonSet ds = daemonSets.getStore().getByKey(key.namespace() + "/" + key.name());
        if (ds == null) {
            expectations.forget(key);
            return null;
        }
        Map<String, List<Pod>> podsByNode = podsByNode(ds);
        List<Node> allNodes = nodes.getStore().list();
        if (expectations.satisfied(key) && ds.getMetadata().getDeletionTimestamp() == null) {
            expectations.forget(key);
            manage(key, ds, allNodes, podsByNode);
        }
        return updateStatus(ds, allNodes, podsByNode);
    }

    /** The DaemonSet's pods that are not being deleted, by the node they run on or are meant for, the one to keep first. */
    private Map<String, List<Pod>> podsByNode(DaemonSet ds) {
        Map<String, List<Pod>> byNode = new HashMap<>();
        for (Pod pod : pods.of(ds.getMetadata().getUid())) {
            String node = targetNode(pod);
            if (!PodClaims.deleted(pod) && node != null) {
                byNode.computeIfAbsent(node, n -> new ArrayList<>()).add(pod);
            }
        }
        byNode.values().forEach(list -> list.sort(OLDEST_FIRST));
        return byNode;
    }

    /** Upstream's {@code podByCreationTimestampAndPhase}: scheduled pods first, then the oldest. */
    private static final Comparator<Pod> OLDEST_FIRST = Comparator
            .comparing((Pod pod) -> !PodClaims.scheduled(pod))
            .thenComparing((Pod pod) -> pod.getMetadata().getCreationTimestamp(),
                    Comparator.nullsLast(Comparator.<String>naturalOrder()))
            .thenComparing(pod -> pod.getMetadata().getName());

    /** Upstream's {@code GetTargetNodeName}: the bound node, else the node its affinity names. */
    static String targetNode(Pod pod) {
        if (PodClaims.scheduled(pod)) {
            return pod.getSpec().getNodeName();
        }
        Affinity affinity = pod.getSpec().getAffinity();
        NodeSelector required = affinity == null || affinity.getNodeAffinity() == null ? null
                : affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        if (required == null) {
            return null;
        }
        for (NodeSelectorTerm term : required.getNodeSelectorTerms()) {
            for (NodeSelectorRequirement field : term.getMatchFields()) {
                if (NodeSelectors.NODE_NAME_FIELD.equals(field.getKey()) && "In".equals(field.getOperator())
                        && field.getValues().size() == 1) {
                    return field.getValues().get(0);
                }
            }
        }
        return null;
    }

    private void manage(Key key, DaemonSet ds, List<Node> allNodes, Map<String, List<Pod>> podsByNode) {
        List<String> nodesNeedingPods = new ArrayList<>();
        List<Pod> podsToDelete = new ArrayList<>();
        Set<String> existingNodes = new HashSet<>();
        for (Node node : allNodes) {
            String nodeName = node.getMetadata().getName();
            existingNodes.add(nodeName);
            Placement placement = placement(ds, node);
            List<Pod> daemonPods = podsByNode.getOrDefault(nodeName, List.of());
            if (placement.shouldRun() && daemonPods.isEmpty()) {
                nodesNeedingPods.add(nodeName);
            } else if (placement.shouldContinueRunning()) {
                List<Pod> running = new ArrayList<>();
                for (Pod pod : daemonPods) {
                    if (pod.getStatus() != null && "Failed".equals(pod.getStatus().getPhase())) {
                        // replaced by the next sync, once the informer shows the deletion
                        events.record(reference(ds), EventRecorder.WARNING, "FailedDaemonPod",
                                "Found failed daemon pod " + key.namespace() + "/" + pod.getMetadata().getName()
                                        + " on node " + nodeName + ", will try to kill it");
                        podsToDelete.add(pod);
                    } else {
                        running.add(pod);
                    }
                }
                if (running.size() > 1) {
                    podsToDelete.addAll(running.subList(1, running.size()));
                }
            } else {
                podsToDelete.addAll(daemonPods);
            }
        }
        podsByNode.forEach((nodeName, daemonPods) -> {
            if (!existingNodes.contains(nodeName)) {
                daemonPods.stream().filter(pod -> !PodClaims.scheduled(pod)).forEach(podsToDelete::add);
            }
        });
        if (nodesNeedingPods.isEmpty() && podsToDelete.isEmpty()) {
            return;
        }
        expectations.expect(key, nodesNeedingPods.size(), podsToDelete.size());
        String hash = templateHash(ds.getSpec().getTemplate());
        for (int i = 0; i < nodesNeedingPods.size(); i++) {
            String nodeName = nodesNeedingPods.get(i);
            try {
                Pod created = client.pods().inNamespace(key.namespace()).resource(podFor(ds, nodeName, hash)).create();
                events.record(reference(ds), EventRecorder.NORMAL, "SuccessfulCreate",
                        "Created pod: " + created.getMetadata().getName());
            } catch (KubernetesClientException e) {
                expectations.creationsFailed(key, nodesNeedingPods.size() - i);
                expectations.deletionsFailed(key, podsToDelete.size());
                events.record(reference(ds), EventRecorder.WARNING, "FailedCreate",
                        "Error creating: " + e.getMessage());
                throw e;
            }
        }
        for (Pod pod : podsToDelete) {
            if (client.pods().inNamespace(key.namespace()).withName(pod.getMetadata().getName()).delete().isEmpty()) {
                expectations.deletionsFailed(key, 1);
            } else {
                events.record(reference(ds), EventRecorder.NORMAL, "SuccessfulDelete",
                        "Deleted pod: " + pod.getMetadata().getName());
            }
        }
        LOG.debug("DaemonSet {}/{}: created pods for {}, deleted {}", key.namespace(), key.name(), nodesNeedingPods,
                podsToDelete.size());
    }

    /** Upstream's {@code NodeShouldRunDaemonPod}. */
    private static Placement placement(DaemonSet ds, Node node) {
        PodSpec template = ds.getSpec().getTemplate().getSpec();
        String nodeName = node.getMetadata().getName();
        if (template.getNodeName() != null && !template.getNodeName().isEmpty()
                && !template.getNodeName().equals(nodeName)) {
            return new Placement(false, false);
        }
        if (!fitsNodeAffinity(template, node)) {
            return new Placement(false, false);
        }
        List<Toleration> tolerations = tolerations(template);
        List<Taint> taints = node.getSpec() == null ? null
                : node.getSpec().getTaints();
        if (PodTolerations.firstUntolerated(taints, tolerations, PodTolerations.SCHEDULING_EFFECTS).isPresent()) {
            boolean evicted = PodTolerations.firstUntolerated(taints, tolerations, PodTolerations.NO_EXECUTE)
                    .isPresent();
            return new Placement(false, !evicted);
        }
        return new Placement(true, true);
    }

    private static boolean fitsNodeAffinity(PodSpec template, Node node) {
        Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of()
                : node.getMetadata().getLabels();
        if (template.getNodeSelector() != null) {
            for (Map.Entry<String, String> entry : template.getNodeSelector().entrySet()) {
                if (!entry.getValue().equals(labels.get(entry.getKey()))) {
                    return false;
                }
            }
        }
        Affinity affinity = template.getAffinity();
        NodeSelector required = affinity == null || affinity.getNodeAffinity() == null ? null
                : affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        try {
            return required == null || NodeSelectors.matches(required, node);
        } catch (NodeSelectors.InvalidNodeSelectorException e) {
            return false;
        }
    }

    /** The template's tolerations plus those every daemon pod gets. */
    private static List<Toleration> tolerations(PodSpec template) {
        List<Toleration> all = new ArrayList<>(template.getTolerations() == null ? List.of()
                : template.getTolerations());
        List<Toleration> added = new ArrayList<>(DAEMON_TOLERATIONS);
        if (Boolean.TRUE.equals(template.getHostNetwork())) {
            added.add(NETWORK_UNAVAILABLE);
        }
        for (Toleration toleration : added) {
            all.removeIf(existing -> Objects.equals(existing.getKey(), toleration.getKey())
                    && Objects.equals(existing.getEffect(), toleration.getEffect()));
            all.add(toleration);
        }
        return all;
    }

    private static Toleration toleration(String key, String effect) {
        return new Toleration(effect, key, "Exists", null, null);
    }

    private static Pod podFor(DaemonSet ds, String nodeName, String hash) {
        PodTemplateSpec template = ds.getSpec().getTemplate();
        ObjectMetaBuilder meta = template.getMetadata() == null ? new ObjectMetaBuilder()
                : new ObjectMetaBuilder(template.getMetadata());
        Map<String, String> labels = new LinkedHashMap<>(template.getMetadata() == null
                || template.getMetadata().getLabels() == null ? Map.of() : template.getMetadata().getLabels());
        labels.put(REVISION_HASH_LABEL, hash);
        labels.put(TEMPLATE_GENERATION_LABEL, String.valueOf(ds.getMetadata().getGeneration()));
        NodeSelector onNode = new NodeSelector(List.of(new NodeSelectorTerm(List.of(),
                List.of(new NodeSelectorRequirement(NodeSelectors.NODE_NAME_FIELD, "In", List.of(nodeName))))));
        Affinity affinity = new AffinityBuilder(template.getSpec().getAffinity() == null ? new Affinity()
                : template.getSpec().getAffinity())
                .editOrNewNodeAffinity().withRequiredDuringSchedulingIgnoredDuringExecution(onNode).endNodeAffinity()
                .build();
        PodSpec spec = new PodSpecBuilder(template.getSpec()).withAffinity(affinity)
                .withTolerations(tolerations(template.getSpec())).build();
        return new PodBuilder()
                .withMetadata(meta.withName(null).withNamespace(null).withGenerateName(ds.getMetadata().getName() + "-")
                        .withLabels(labels)
                        .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("apps/v1")
                                .withKind("DaemonSet").withName(ds.getMetadata().getName())
                                .withUid(ds.getMetadata().getUid()).withController(true)
                                .withBlockOwnerDeletion(true).build())
                        .build())
                .withSpec(spec)
                .build();
    }

    /** Stands in for the ControllerRevision hash: equal templates, equal hashes, in every JVM. */
    static String templateHash(PodTemplateSpec template) {
        return Integer.toUnsignedString(Objects.hashCode(template), 36);
    }

    /** @return when to look again for a pod that becomes available after {@code minReadySeconds}, or null */
    private Duration updateStatus(DaemonSet ds, List<Node> allNodes, Map<String, List<Pod>> podsByNode) {
        String hash = templateHash(ds.getSpec().getTemplate());
        int minReadySeconds = ds.getSpec().getMinReadySeconds() == null ? 0 : ds.getSpec().getMinReadySeconds();
        Instant now = Instant.now();
        int desired = 0;
        int scheduled = 0;
        int misscheduled = 0;
        int ready = 0;
        int available = 0;
        int updated = 0;
        Duration recheck = null;
        for (Node node : allNodes) {
            Placement placement = placement(ds, node);
            List<Pod> daemonPods = podsByNode.getOrDefault(node.getMetadata().getName(), List.of()).stream()
                    .filter(PodClaims::scheduled).toList();
            if (placement.shouldRun()) {
                desired++;
                if (!daemonPods.isEmpty()) {
                    scheduled++;
                    Pod oldest = daemonPods.get(0);
                    Instant readySince = readySince(oldest);
                    if (readySince != null) {
                        ready++;
                        Instant availableAt = readySince.plusSeconds(minReadySeconds);
                        if (!availableAt.isAfter(now)) {
                            available++;
                        } else {
                            Duration wait = Duration.between(now, availableAt).plusSeconds(1);
                            recheck = recheck == null || wait.compareTo(recheck) < 0 ? wait : recheck;
                        }
                    }
                    if (oldest.getMetadata().getLabels() != null
                            && hash.equals(oldest.getMetadata().getLabels().get(REVISION_HASH_LABEL))) {
                        updated++;
                    }
                }
            } else if (!daemonPods.isEmpty()) {
                misscheduled++;
            }
        }
        DaemonSetStatus current = ds.getStatus() == null ? new DaemonSetStatus() : ds.getStatus();
        DaemonSetStatus wanted = new DaemonSetStatusBuilder(current).withDesiredNumberScheduled(desired)
                .withCurrentNumberScheduled(scheduled).withNumberMisscheduled(misscheduled).withNumberReady(ready)
                .withNumberAvailable(available).withNumberUnavailable(desired - available)
                .withUpdatedNumberScheduled(updated).withObservedGeneration(ds.getMetadata().getGeneration()).build();
        if (!Objects.equals(wanted, current)) {
            client.apps().daemonSets().inNamespace(ds.getMetadata().getNamespace())
                    .resource(new DaemonSetBuilder(ds).withStatus(wanted).build()).updateStatus();
        }
        return recheck;
    }

    /** When the pod's Ready condition last became true, or null when it is not ready. */
    private static Instant readySince(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return null;
        }
        for (PodCondition condition : pod.getStatus().getConditions()) {
            if ("Ready".equals(condition.getType()) && "True".equals(condition.getStatus())) {
                String since = condition.getLastTransitionTime();
                return since == null || since.isEmpty() ? Instant.EPOCH : Instant.parse(since);
            }
        }
        return null;
    }

    private static ObjectReference reference(DaemonSet ds) {
        return new ObjectReferenceBuilder().withApiVersion("apps/v1").withKind("DaemonSet")
                .withNamespace(ds.getMetadata().getNamespace()).withName(ds.getMetadata().getName())
                .withUid(ds.getMetadata().getUid()).build();
    }
}
