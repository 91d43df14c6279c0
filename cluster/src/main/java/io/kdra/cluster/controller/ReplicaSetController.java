package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kdra.cluster.EventRecorder;
import io.kdra.kube.client.Informers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's ReplicaSet controller ({@code pkg/controller/replicaset}): keeps as many active pods
 * (not terminal, not deleted) controlled by a ReplicaSet as its {@code spec.replicas} asks, creating them from the
 * template ({@code generateName <rs>-}, the ReplicaSet as controller) and deleting the least useful first
 * (unscheduled, then pending, then not ready, then the youngest), and reports {@code replicas},
 * {@code fullyLabeledReplicas}, {@code readyReplicas}, {@code availableReplicas} and {@code observedGeneration}.
 * As upstream, expectations keep a sync from acting again on pods it created or deleted that the informer has not
 * shown yet. Orphaned pods that match a selector are not adopted.
 */
public final class ReplicaSetController extends InformerController<ReplicaSetController, ReplicaSetController.Key> {

    static final String COMPONENT = "replicaset-controller";

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaSetController.class);
    /** Upstream's burst of pod creations or deletions per sync. */
    private static final int BURST_REPLICAS = 500;

    record Key(String namespace, String name) {}

    private final SharedIndexInformer<ReplicaSet> replicaSets;
    private final ControlledPods<Key> pods;
    private final EventRecorder events;
    private final PodExpectations<Key> expectations = new PodExpectations<>();

    /** A controller with informers of its own. */
    public ReplicaSetController(KubernetesClient client) {
        this(new SharedInformers(client), true, 1);
    }

    /** A controller on shared informers, started and closed by their owner. */
    public ReplicaSetController(SharedInformers informers, int workers) {
        this(informers, false, workers);
    }

    private ReplicaSetController(SharedInformers informers, boolean ownsInformers, int workers) {
        super(informers, ownsInformers, COMPONENT, workers);
        this.events = EventRecorder.ownThread(client, COMPONENT);
        this.replicaSets = informers.informer(ReplicaSet.class);
        replicaSets.addEventHandler(Informers.handler(rs -> queue.add(key(rs)), rs -> expectations.forget(key(rs))));
        this.pods = new ControlledPods<>(informers.informer(Pod.class), "ReplicaSet", Key::new, expectations, queue);
    }

    @Override
    public void close() {
        super.close();
        events.close();
    }

    private static Key key(ReplicaSet rs) {
        return new Key(rs.getMetadata().getNamespace(), rs.getMetadata().getName());
    }

    @Override
    Duration sync(Key key) {
        ReplicaSet rs = replicaSets.getStore().getByKey(key.namespace() + "/" + key.name());
        if (rs == null) {
            expectations.forget(key);
            return null;
        }
        List<Pod> owned = new ArrayList<>();
        for (Pod pod : pods.of(rs.getMetadata().getUid())) {
            if (!PodClaims.isTerminal(pod) && !PodClaims.deleted(pod)) {
                owned.add(pod);
            }
        }
        if (expectations.satisfied(key) && rs.getMetadata().getDeletionTimestamp() == null) {
            expectations.forget(key);
            manageReplicas(key, rs, owned);
        }
        updateStatus(rs, owned);
        return null;
    }

    private void manageReplicas(Key key, ReplicaSet rs, List<Pod> active) {
        int wanted = rs.getSpec().getReplicas() == null ? 1 : rs.getSpec().getReplicas();
        int diff = active.size() - wanted;
        if (diff < 0) {
            int count = Math.min(-diff, BURST_REPLICAS);
            expectations.expect(key, count, 0);
            for (int i = 0; i < count; i++) {
                try {
                    client.pods().inNamespace(key.namespace()).resource(podFor(rs)).create();
                } catch (KubernetesClientException e) {
                    expectations.creationsFailed(key, count - i);
                    events.record(reference(rs), EventRecorder.WARNING, "FailedCreate",
                            "Error creating: " + e.getMessage());
                    throw e;
                }
            }
            if (count > 0) {
                LOG.debug("ReplicaSet {}/{}: created {} pods", key.namespace(), key.name(), count);
            }
        } else if (diff > 0) {
            int count = Math.min(diff, BURST_REPLICAS);
            List<Pod> victims = new ArrayList<>(active);
            victims.sort(DELETION_ORDER);
            expectations.expect(key, 0, count);
            for (Pod pod : victims.subList(0, count)) {
                client.pods().inNamespace(key.namespace()).withName(pod.getMetadata().getName()).delete();
            }
            LOG.debug("ReplicaSet {}/{}: deleted {} pods", key.namespace(), key.name(), count);
        }
    }

    /** The pods to delete first: unscheduled, then pending, then not ready, then the youngest. */
    private static final Comparator<Pod> DELETION_ORDER = Comparator
            .comparing((Pod pod) -> PodClaims.scheduled(pod))
            .thenComparing(pod -> phaseRank(pod.getStatus() == null ? null : pod.getStatus().getPhase()))
            .thenComparing(ReplicaSetController::ready)
            .thenComparing((Pod pod) -> pod.getMetadata().getCreationTimestamp(),
                    Comparator.nullsLast(Comparator.<String>naturalOrder()).reversed());

    private static int phaseRank(String phase) {
        if ("Pending".equals(phase) || phase == null) {
            return 0;
        }
        return "Running".equals(phase) ? 2 : 1;
    }

    static boolean ready(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getConditions() != null && pod.getStatus().getConditions()
                .stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static Pod podFor(ReplicaSet rs) {
        var template = rs.getSpec().getTemplate();
        var meta = template.getMetadata() == null ? new ObjectMetaBuilder() : new ObjectMetaBuilder(
                template.getMetadata());
        return new PodBuilder()
                .withMetadata(meta.withName(null).withNamespace(null).withGenerateName(rs.getMetadata().getName() + "-")
                        .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("apps/v1")
                                .withKind("ReplicaSet").withName(rs.getMetadata().getName())
                                .withUid(rs.getMetadata().getUid()).withController(true)
                                .withBlockOwnerDeletion(true).build())
                        .build())
                .withSpec(template.getSpec())
                .build();
    }

    private void updateStatus(ReplicaSet rs, List<Pod> active) {
        Map<String, String> templateLabels = rs.getSpec().getTemplate().getMetadata() == null ? Map.of()
                : rs.getSpec().getTemplate().getMetadata().getLabels();
        int fullyLabeled = 0;
        int ready = 0;
        for (Pod pod : active) {
            Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of()
                    : pod.getMetadata().getLabels();
            if (templateLabels == null || labels.entrySet().containsAll(templateLabels.entrySet())) {
                fullyLabeled++;
            }
            if (ready(pod)) {
                ready++;
            }
        }
        ReplicaSetStatus current = rs.getStatus() == null ? new ReplicaSetStatus() : rs.getStatus();
        // minReadySeconds is not honoured: a ready pod counts as available at once
        ReplicaSetStatus wanted = new ReplicaSetStatusBuilder(current).withReplicas(active.size())
                .withFullyLabeledReplicas(fullyLabeled).withReadyReplicas(ready).withAvailableReplicas(ready)
                .withObservedGeneration(rs.getMetadata().getGeneration()).build();
        if (Objects.equals(wanted, current)) {
            return;
        }
        client.apps().replicaSets().inNamespace(rs.getMetadata().getNamespace())
                .resource(new ReplicaSetBuilder(rs).withStatus(wanted).build()).updateStatus();
    }

    private static io.fabric8.kubernetes.api.model.ObjectReference reference(ReplicaSet rs) {
        return new io.fabric8.kubernetes.api.model.ObjectReferenceBuilder().withApiVersion("apps/v1")
                .withKind("ReplicaSet").withNamespace(rs.getMetadata().getNamespace())
                .withName(rs.getMetadata().getName()).withUid(rs.getMetadata().getUid()).build();
    }
}
