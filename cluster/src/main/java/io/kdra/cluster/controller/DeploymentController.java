package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kdra.cluster.EventRecorder;
import io.kdra.kube.client.Informers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's Deployment controller ({@code pkg/controller/deployment}), simplified: one ReplicaSet
 * per pod template ({@code <deployment>-<pod-template-hash>}, the hash also a label of the ReplicaSet, its selector
 * and its pods), revisions in {@code deployment.kubernetes.io/revision}, the {@code RollingUpdate} strategy with
 * {@code maxSurge} and {@code maxUnavailable} (upstream's arithmetic) and {@code Recreate}, old ReplicaSets beyond
 * {@code revisionHistoryLimit} deleted, and the status fields and conditions ({@code Available},
 * {@code Progressing}) that {@code kubectl get deploy} and {@code kubectl rollout status} read. Not ported:
 * proportional scaling of several live ReplicaSets, {@code progressDeadlineSeconds}, {@code minReadySeconds},
 * rollbacks through {@code kubectl rollout undo} (a template equal to an old one reuses its ReplicaSet, which is what
 * undo amounts to), hash collisions.
 */
public final class DeploymentController extends InformerController<DeploymentController, DeploymentController.Key> {

    static final String REVISION = "deployment.kubernetes.io/revision";
    static final String DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
    static final String MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";
    static final String HASH_LABEL = "pod-template-hash";
    static final String COMPONENT = "deployment-controller";

    private static final Logger LOG = LoggerFactory.getLogger(DeploymentController.class);
    private static final String OWNER_INDEX = "deployment-controller/owner";
    private static final String SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

    record Key(String namespace, String name) {}

    private final SharedIndexInformer<Deployment> deployments;
    private final SharedIndexInformer<ReplicaSet> replicaSets;
    private final EventRecorder events;

    /** A controller with informers of its own. */
    public DeploymentController(KubernetesClient client) {
        this(new SharedInformers(client), true, 1);
    }

    /** A controller on shared informers, started and closed by their owner. */
    public DeploymentController(SharedInformers informers, int workers) {
        this(informers, false, workers);
    }

    private DeploymentController(SharedInformers informers, boolean ownsInformers, int workers) {
        super(informers, ownsInformers, COMPONENT, workers);
        this.events = EventRecorder.ownThread(client, COMPONENT);
        this.deployments = informers.informer(Deployment.class);
        this.replicaSets = informers.informer(ReplicaSet.class);
        replicaSets.addIndexers(Map.of(OWNER_INDEX, rs -> {
            OwnerReference owner = owner(rs);
            return owner == null ? List.of() : List.of(owner.getUid());
        }));
        deployments.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Deployment deployment) {
                queue.add(key(deployment));
            }

            @Override
            public void onUpdate(Deployment oldDeployment, Deployment newDeployment) {
                queue.add(key(newDeployment));
            }

            @Override
            public void onDelete(Deployment deployment, boolean finalStateUnknown) {
                // the garbage collector deletes its ReplicaSets
            }
        });
        replicaSets.addEventHandler(Informers.handler(this::enqueueOwner, this::enqueueOwner));
    }

    @Override
    public void close() {
        super.close();
        events.close();
    }

    private static Key key(Deployment deployment) {
        return new Key(deployment.getMetadata().getNamespace(), deployment.getMetadata().getName());
    }

    private static OwnerReference owner(ReplicaSet rs) {
        OwnerReference owner = PodClaims.controller(rs.getMetadata().getOwnerReferences());
        return owner != null && "Deployment".equals(owner.getKind()) && "apps/v1".equals(owner.getApiVersion())
                ? owner : null;
    }

    private void enqueueOwner(ReplicaSet rs) {
        OwnerReference owner = owner(rs);
        if (owner != null) {
            queue.add(new Key(rs.getMetadata().getNamespace(), owner.getName()));
        }
    }

    @Override
    Duration sync(Key key) {
        Deployment deployment = deployments.getStore().getByKey(key.namespace() + "/" + key.name());
        if (deployment == null || deployment.getMetadata().getDeletionTimestamp() != null) {
            return null;
        }
        List<ReplicaSet> owned = new ArrayList<>(replicaSets.getIndexer().byIndex(OWNER_INDEX,
                deployment.getMetadata().getUid()));
        String hash = templateHash(deployment);
        ReplicaSet newRs = owned.stream().filter(rs -> hash.equals(label(rs, HASH_LABEL))).findFirst().orElse(null);
        List<ReplicaSet> old = new ArrayList<>(owned);
        old.remove(newRs);
        int replicas = replicas(deployment);
        boolean paused = Boolean.TRUE.equals(deployment.getSpec().getPaused());
        long maxOldRevision = old.stream().mapToLong(DeploymentController::revision).max().orElse(0);
        String progressReason = null;
        if (newRs == null && !paused) {
            newRs = createReplicaSet(deployment, hash, maxOldRevision + 1, initialReplicas(deployment, old));
            progressReason = "NewReplicaSetCreated";
        } else if (newRs != null && revision(newRs) <= maxOldRevision) {
            // the template went back to an older one: that ReplicaSet is the newest revision again
            newRs = scale(newRs, replicas(newRs), deployment, maxOldRevision + 1);
        }
        if (newRs != null && !paused) {
            newRs = rollout(deployment, newRs, old);
        }
        cleanup(deployment, old);
        String revision = newRs == null ? null : String.valueOf(revision(newRs));
        if (revision != null && !revision.equals(annotation(deployment, REVISION))) {
            deployment = client.apps().deployments().inNamespace(key.namespace()).resource(
                    new DeploymentBuilder(deployment).editMetadata().addToAnnotations(REVISION, revision).endMetadata()
                            .build()).update();
        }
        updateStatus(deployment, newRs, old, replicas, progressReason);
        return null;
    }

    private ReplicaSet rollout(Deployment deployment, ReplicaSet newRs, List<ReplicaSet> old) {
        int replicas = replicas(deployment);
        if ("Recreate".equals(strategyType(deployment))) {
            boolean oldRunning = false;
            for (ReplicaSet rs : old) {
                if (replicas(rs) > 0) {
                    scale(rs, 0, deployment, revision(rs));
                    oldRunning = true;
                } else if (statusReplicas(rs) > 0) {
                    oldRunning = true;
                }
            }
            return oldRunning ? newRs : replicas(newRs) == replicas ? newRs
                    : scale(newRs, replicas, deployment, revision(newRs));
        }
        int[] fenceposts = fenceposts(deployment);
        int all = replicas(newRs) + old.stream().mapToInt(DeploymentController::replicas).sum();
        int newCount = newReplicas(replicas, fenceposts[0], all, replicas(newRs));
        if (newCount != replicas(newRs)) {
            newRs = scale(newRs, newCount, deployment, revision(newRs));
        }
        List<ReplicaSet> active = old.stream().filter(rs -> replicas(rs) > 0)
                .sorted(Comparator.comparing((ReplicaSet rs) -> rs.getMetadata().getCreationTimestamp())).toList();
        if (active.isEmpty()) {
            return newRs;
        }
        all = replicas(newRs) + active.stream().mapToInt(DeploymentController::replicas).sum();
        int minAvailable = replicas - fenceposts[1];
        int newUnavailable = replicas(newRs) - available(newRs);
        int maxScaledDown = all - minAvailable - newUnavailable;
        if (maxScaledDown <= 0) {
            return newRs;
        }
        // first the old pods that are not available anyway, then available ones down to minAvailable
        int[] targets = active.stream().mapToInt(DeploymentController::replicas).toArray();
        int budget = maxScaledDown;
        for (int i = 0; i < active.size() && budget > 0; i++) {
            int unhealthy = Math.max(0, targets[i] - available(active.get(i)));
            int down = Math.min(unhealthy, budget);
            targets[i] -= down;
            budget -= down;
        }
        int availableAll = available(newRs) + active.stream().mapToInt(DeploymentController::available).sum();
        int scaleDown = Math.min(budget, Math.max(0, availableAll - minAvailable));
        for (int i = 0; i < active.size() && scaleDown > 0; i++) {
            int down = Math.min(targets[i], scaleDown);
            targets[i] -= down;
            scaleDown -= down;
        }
        for (int i = 0; i < active.size(); i++) {
            if (targets[i] != replicas(active.get(i))) {
                scale(active.get(i), targets[i], deployment, revision(active.get(i)));
            }
        }
        return newRs;
    }

    /**
     * {@code NewRSNewReplicas}: the new ReplicaSet grows until all ReplicaSets together reach
     * {@code replicas + maxSurge}, and never beyond {@code replicas}.
     */
    static int newReplicas(int replicas, int maxSurge, int allReplicas, int newReplicas) {
        if (newReplicas > replicas) {
            return replicas;
        }
        int maxTotal = replicas + maxSurge;
        if (allReplicas >= maxTotal) {
            return newReplicas;
        }
        return newReplicas + Math.min(maxTotal - allReplicas, replicas - newReplicas);
    }

    /**
     * {@code ResolveFenceposts}: maxSurge rounds up, maxUnavailable down; both zero would deadlock, so
     * maxUnavailable is then 1. Defaults 25 % each.
     *
     * @return {maxSurge, maxUnavailable}
     */
    static int[] fenceposts(IntOrString maxSurge, IntOrString maxUnavailable, int replicas) {
        int surge = scaled(maxSurge, replicas, true);
        int unavailable = scaled(maxUnavailable, replicas, false);
        if (surge == 0 && unavailable == 0) {
            unavailable = 1;
        }
        return new int[] {surge, unavailable};
    }

    private static int[] fenceposts(Deployment deployment) {
        var rolling = deployment.getSpec().getStrategy() == null ? null
                : deployment.getSpec().getStrategy().getRollingUpdate();
        return fenceposts(rolling == null ? null : rolling.getMaxSurge(),
                rolling == null ? null : rolling.getMaxUnavailable(), replicas(deployment));
    }

    private static int scaled(IntOrString value, int replicas, boolean roundUp) {
        if (value == null) {
            value = new IntOrString("25%");
        }
        if (value.getIntVal() != null) {
            return value.getIntVal();
        }
        String text = value.getStrVal();
        if (text.endsWith("%")) {
            int percent = Integer.parseInt(text.substring(0, text.length() - 1));
            long scaled = (long) percent * replicas;
            return (int) (roundUp ? (scaled + 99) / 100 : scaled / 100);
        }
        return Integer.parseInt(text);
    }

    private int initialReplicas(Deployment deployment, List<ReplicaSet> old) {
        int replicas = replicas(deployment);
        if ("Recreate".equals(strategyType(deployment))) {
            return old.stream().anyMatch(rs -> replicas(rs) > 0 || statusReplicas(rs) > 0) ? 0 : replicas;
        }
        int all = old.stream().mapToInt(DeploymentController::replicas).sum();
        return newReplicas(replicas, fenceposts(deployment)[0], all, 0);
    }

    private ReplicaSet createReplicaSet(Deployment deployment, String hash, long revision, int replicas) {
        var template = new PodTemplateSpecBuilder(deployment.getSpec().getTemplate()).editOrNewMetadata()
                .addToLabels(HASH_LABEL, hash).endMetadata().build();
        var selector = new LabelSelectorBuilder(deployment.getSpec().getSelector()).addToMatchLabels(HASH_LABEL, hash)
                .build();
        Map<String, String> labels = new HashMap<>(template.getMetadata().getLabels());
        ReplicaSet rs = new ReplicaSetBuilder()
                .withMetadata(new ObjectMetaBuilder().withName(deployment.getMetadata().getName() + "-" + hash)
                        .withNamespace(deployment.getMetadata().getNamespace()).withLabels(labels)
                        .withAnnotations(Map.of(REVISION, String.valueOf(revision),
                                DESIRED_REPLICAS, String.valueOf(replicas(deployment)),
                                MAX_REPLICAS, String.valueOf(replicas(deployment) + fenceposts(deployment)[0])))
                        .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("apps/v1")
                                .withKind("Deployment").withName(deployment.getMetadata().getName())
                                .withUid(deployment.getMetadata().getUid()).withController(true)
                                .withBlockOwnerDeletion(true).build())
                        .build())
                .withNewSpec().withReplicas(replicas).withSelector(selector).withTemplate(template)
                .withMinReadySeconds(deployment.getSpec().getMinReadySeconds()).endSpec()
                .build();
        ReplicaSet created = client.apps().replicaSets().inNamespace(deployment.getMetadata().getNamespace())
                .resource(rs).create();
        events.record(reference(deployment), EventRecorder.NORMAL, "ScalingReplicaSet",
                "Scaled up replica set " + created.getMetadata().getName() + " from 0 to " + replicas);
        return created;
    }

    private ReplicaSet scale(ReplicaSet rs, int replicas, Deployment deployment, long revision) {
        int from = replicas(rs);
        ReplicaSet scaled = client.apps().replicaSets().inNamespace(rs.getMetadata().getNamespace()).resource(
                new ReplicaSetBuilder(rs).editMetadata()
                        .addToAnnotations(REVISION, String.valueOf(revision))
                        .addToAnnotations(DESIRED_REPLICAS, String.valueOf(replicas(deployment)))
                        .addToAnnotations(MAX_REPLICAS,
                                String.valueOf(replicas(deployment) + fenceposts(deployment)[0]))
                        .endMetadata().editSpec().withReplicas(replicas).endSpec().build()).update();
        if (from != replicas) {
            events.record(reference(deployment), EventRecorder.NORMAL, "ScalingReplicaSet",
                    "Scaled " + (replicas > from ? "up" : "down") + " replica set " + rs.getMetadata().getName()
                            + " from " + from + " to " + replicas);
        }
        return scaled;
    }

    /** Deletes the oldest unused ReplicaSets beyond {@code revisionHistoryLimit} (default 10). */
    private void cleanup(Deployment deployment, List<ReplicaSet> old) {
        Integer limit = deployment.getSpec().getRevisionHistoryLimit();
        int keep = limit == null ? 10 : limit;
        List<ReplicaSet> unused = old.stream().filter(rs -> replicas(rs) == 0 && statusReplicas(rs) == 0)
                .sorted(Comparator.comparingLong(DeploymentController::revision)).toList();
        for (int i = 0; i < unused.size() - keep; i++) {
            client.apps().replicaSets().inNamespace(deployment.getMetadata().getNamespace())
                    .withName(unused.get(i).getMetadata().getName()).delete();
        }
    }

    private void updateStatus(Deployment deployment, ReplicaSet newRs, List<ReplicaSet> old, int replicas,
            String progressReason) {
        List<ReplicaSet> all = new ArrayList<>(old);
        if (newRs != null) {
            all.add(newRs);
        }
        int total = all.stream().mapToInt(DeploymentController::statusReplicas).sum();
        int ready = all.stream().mapToInt(rs -> rs.getStatus() == null || rs.getStatus().getReadyReplicas() == null
                ? 0 : rs.getStatus().getReadyReplicas()).sum();
        int available = all.stream().mapToInt(DeploymentController::available).sum();
        int updated = newRs == null ? 0 : statusReplicas(newRs);
        DeploymentStatus current = deployment.getStatus() == null ? new DeploymentStatus() : deployment.getStatus();
        List<DeploymentCondition> conditions = new ArrayList<>(current.getConditions() == null ? List.of()
                : current.getConditions());
        int minAvailable = replicas - fenceposts(deployment)[1];
        if (available >= minAvailable) {
            setCondition(conditions, "Available", "True", "MinimumReplicasAvailable",
                    "Deployment has minimum availability.");
        } else {
            setCondition(conditions, "Available", "False", "MinimumReplicasUnavailable",
                    "Deployment does not have minimum availability.");
        }
        if (newRs != null) {
            String name = newRs.getMetadata().getName();
            boolean complete = updated == replicas && total == replicas && available == replicas
                    && replicas(newRs) == replicas;
            if (complete) {
                setCondition(conditions, "Progressing", "True", "NewReplicaSetAvailable",
                        "ReplicaSet \"" + name + "\" has successfully progressed.");
            } else if ("NewReplicaSetCreated".equals(progressReason)) {
                setCondition(conditions, "Progressing", "True", "NewReplicaSetCreated",
                        "Created new replica set \"" + name + "\"");
            } else if (conditions.stream().noneMatch(c -> "Progressing".equals(c.getType()))) {
                setCondition(conditions, "Progressing", "True", "FoundNewReplicaSet",
                        "Found new replica set \"" + name + "\"");
            } else {
                setCondition(conditions, "Progressing", "True", "ReplicaSetUpdated",
                        "ReplicaSet \"" + name + "\" is progressing.");
            }
        }
        DeploymentStatus wanted = new DeploymentStatusBuilder(current).withReplicas(total).withUpdatedReplicas(updated)
                .withReadyReplicas(ready).withAvailableReplicas(available)
                .withUnavailableReplicas(Math.max(0, replicas - available))
                .withObservedGeneration(deployment.getMetadata().getGeneration()).withConditions(conditions).build();
        if (Objects.equals(wanted, current)) {
            return;
        }
        client.apps().deployments().inNamespace(deployment.getMetadata().getNamespace())
                .resource(new DeploymentBuilder(deployment).withStatus(wanted).build()).updateStatus();
        LOG.debug("Deployment {}/{}: {} replicas, {} updated, {} available", deployment.getMetadata().getNamespace(),
                deployment.getMetadata().getName(), total, updated, available);
    }

    /** Sets a condition; its transition time changes with its status, its update time with anything. */
    private static void setCondition(List<DeploymentCondition> conditions, String type, String status, String reason,
            String message) {
        String now = PodClaims.now();
        for (int i = 0; i < conditions.size(); i++) {
            DeploymentCondition condition = conditions.get(i);
            if (!type.equals(condition.getType())) {
                continue;
            }
            if (status.equals(condition.getStatus()) && reason.equals(condition.getReason())
                    && message.equals(condition.getMessage())) {
                return;
            }
            conditions.set(i, new DeploymentConditionBuilder(condition).withStatus(status).withReason(reason)
                    .withMessage(message).withLastUpdateTime(now)
                    .withLastTransitionTime(status.equals(condition.getStatus()) ? condition.getLastTransitionTime()
                            : now).build());
            return;
        }
        conditions.add(new DeploymentConditionBuilder().withType(type).withStatus(status).withReason(reason)
                .withMessage(message).withLastUpdateTime(now).withLastTransitionTime(now).build());
    }

    /**
     * The pod template's hash as the {@code pod-template-hash} label carries it: FNV-1a (32 bit) of the template's
     * JSON, its decimal digits mapped onto upstream's safe alphabet. The digest differs from upstream's (which hashes
     * Go's printed structure); the form does not.
     */
    String templateHash(Deployment deployment) {
        byte[] json = client.getKubernetesSerialization().asJson(deployment.getSpec().getTemplate())
                .getBytes(StandardCharsets.UTF_8);
        int hash = 0x811c9dc5;
        for (byte b : json) {
            hash ^= b & 0xff;
            hash *= 0x01000193;
        }
        Integer collisions = deployment.getStatus() == null ? null : deployment.getStatus().getCollisionCount();
        if (collisions != null) {
            hash ^= collisions;
            hash *= 0x01000193;
        }
        String digits = Long.toString(Integer.toUnsignedLong(hash));
        StringBuilder safe = new StringBuilder(digits.length());
        for (char c : digits.toCharArray()) {
            safe.append(SAFE_ALPHABET.charAt(c % SAFE_ALPHABET.length()));
        }
        return safe.toString();
    }

    private static String strategyType(Deployment deployment) {
        return deployment.getSpec().getStrategy() == null || deployment.getSpec().getStrategy().getType() == null
                ? "RollingUpdate" : deployment.getSpec().getStrategy().getType();
    }

    private static int replicas(Deployment deployment) {
        return deployment.getSpec().getReplicas() == null ? 1 : deployment.getSpec().getReplicas();
    }

    private static int replicas(ReplicaSet rs) {
        return rs.getSpec().getReplicas() == null ? 1 : rs.getSpec().getReplicas();
    }

    private static int statusReplicas(ReplicaSet rs) {
        return rs.getStatus() == null || rs.getStatus().getReplicas() == null ? 0 : rs.getStatus().getReplicas();
    }

    private static int available(ReplicaSet rs) {
        return rs.getStatus() == null || rs.getStatus().getAvailableReplicas() == null ? 0
                : rs.getStatus().getAvailableReplicas();
    }

    private static long revision(ReplicaSet rs) {
        String value = annotation(rs.getMetadata().getAnnotations(), REVISION);
        try {
            return value == null ? 0 : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String label(ReplicaSet rs, String key) {
        return rs.getMetadata().getLabels() == null ? null : rs.getMetadata().getLabels().get(key);
    }

    private static String annotation(Deployment deployment, String key) {
        return annotation(deployment.getMetadata().getAnnotations(), key);
    }

    private static String annotation(Map<String, String> annotations, String key) {
        return annotations == null ? null : annotations.get(key);
    }

    private static io.fabric8.kubernetes.api.model.ObjectReference reference(Deployment deployment) {
        return new io.fabric8.kubernetes.api.model.ObjectReferenceBuilder().withApiVersion("apps/v1")
                .withKind("Deployment").withNamespace(deployment.getMetadata().getNamespace())
                .withName(deployment.getMetadata().getName()).withUid(deployment.getMetadata().getUid()).build();
    }
}
