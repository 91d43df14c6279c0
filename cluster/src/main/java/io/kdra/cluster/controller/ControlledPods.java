package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The pods an apps/v1 workload controller (ReplicaSet, DaemonSet) owns through its controller reference: indexed by
 * the owner's UID, and every change of one queues its owner's key and settles the owner's {@link PodExpectations}
 * (a pod seen added, or seen deleted or marked for deletion).
 *
 * @param <K> the controller's key
 */
final class ControlledPods<K> {

    private final SharedIndexInformer<Pod> pods;
    private final String ownerKind;
    private final String index;
    private final BiFunction<String, String, K> key;

    /**
     * @param ownerKind the owners' kind, e.g. {@code ReplicaSet}
     * @param key the key of an owner from its namespace and name
     */
    ControlledPods(SharedIndexInformer<Pod> pods, String ownerKind, BiFunction<String, String, K> key,
            PodExpectations<K> expectations, WorkQueue<K> queue) {
        this.pods = pods;
        this.ownerKind = ownerKind;
        this.index = ownerKind + "-controller/owner";
        this.key = key;
        pods.addIndexers(Map.of(index, pod -> {
            OwnerReference owner = owner(pod);
            return owner == null ? List.of() : List.of(owner.getUid());
        }));
        pods.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                K owner = ownerKey(pod);
                if (owner != null) {
                    expectations.observed(owner, true);
                    queue.add(owner);
                }
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                K owner = ownerKey(newPod);
                if (owner != null) {
                    if (!PodClaims.deleted(oldPod) && PodClaims.deleted(newPod)) {
                        expectations.observed(owner, false);
                    }
                    queue.add(owner);
                }
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                K owner = ownerKey(pod);
                if (owner != null) {
                    if (!PodClaims.deleted(pod)) {
                        expectations.observed(owner, false);
                    }
                    queue.add(owner);
                }
            }
        });
    }

    /** The pods whose controller is the owner with this UID. */
    List<Pod> of(String ownerUid) {
        return pods.getIndexer().byIndex(index, ownerUid);
    }

    private OwnerReference owner(Pod pod) {
        OwnerReference owner = PodClaims.controller(pod.getMetadata().getOwnerReferences());
        return owner != null && ownerKind.equals(owner.getKind()) && "apps/v1".equals(owner.getApiVersion())
                ? owner : null;
    }

    private K ownerKey(Pod pod) {
        OwnerReference owner = owner(pod);
        return owner == null ? null : key.apply(pod.getMetadata().getNamespace(), owner.getName());
    }
}
