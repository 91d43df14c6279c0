package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controllers of kube-controller-manager that a DRA cluster needs, on one set of shared informers and one client:
 * resourceclaim, device-taint-eviction (when DRADeviceTaints is on; DeviceTaintRules when DRADeviceTaintRules is),
 * resourcepoolstatusrequest (when DRAResourcePoolStatus is on),
 * ReplicaSet, DaemonSet and Deployment (each when the API server serves it), node lifecycle and pod garbage
 * collection.
 *
 * <pre>{@code
 * try (var controllers = KubeControllerManager.builder(client).timing(Timing.FAST).featureGates(gates).build()
 *         .start()) {
 *     ...
 * }
 * }</pre>
 *
 * The client should carry the controller manager's identity ({@code system:kube-controller-manager}) and user agent
 * ({@code kube-controller-manager}), which becomes the field manager of the writes that name none.
 */
public final class KubeControllerManager implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KubeControllerManager.class);

    private final SharedInformers informers;
    private final List<AutoCloseable> controllers = new ArrayList<>();
    private final List<Runnable> starts = new ArrayList<>();
    private boolean closed;

    private KubeControllerManager(Builder builder) {
        this.informers = new SharedInformers(builder.client);
        ResourceClaimController claims = new ResourceClaimController(informers, builder.gates, 4);
        add(claims, claims::start);
        if (builder.gates.enabled(FeatureGates.DRA_DEVICE_TAINTS)) {
            DeviceTaintEvictionController eviction = new DeviceTaintEvictionController(informers, builder.gates,
                    builder.timing);
            add(eviction, eviction::start);
        }
        ReplicaSetController replicaSets = new ReplicaSetController(informers, 2);
        add(replicaSets, replicaSets::start);
        if (builder.client.supports(DaemonSet.class)) {
            DaemonSetController daemonSets = new DaemonSetController(informers, 1);
            add(daemonSets, daemonSets::start);
        } else {
            LOG.info("the API server does not serve apps/v1 DaemonSets: no DaemonSet controller");
        }
        if (builder.client.supports(Deployment.class)) {
            DeploymentController deployments = new DeploymentController(informers, 1);
            add(deployments, deployments::start);
        } else {
            LOG.info("the API server does not serve apps/v1 Deployments: no Deployment controller");
        }
        if (builder.gates.enabled(FeatureGates.DRA_RESOURCE_POOL_STATUS)) {
            ResourcePoolStatusController poolStatus = new ResourcePoolStatusController(informers,
                    Clock.systemUTC());
            add(poolStatus, poolStatus::start);
        }
        NodeLifecycleController nodes = new NodeLifecycleController(informers, builder.timing);
        add(nodes, nodes::start);
        PodGarbageCollector podGc = new PodGarbageCollector(informers, builder.timing);
        add(podGc, podGc::start);
    }

    private void add(AutoCloseable controller, Runnable start) {
        controllers.add(controller);
        starts.add(start);
    }

    public static Builder builder(KubernetesClient client) {
        return new Builder(client);
    }

    /** Starts every informer and controller; returns when the informers have listed. */
    public KubeControllerManager start() {
        informers.start();
        starts.forEach(Runnable::run);
        LOG.info("kube-controller-manager: {} controllers running", controllers.size());
        return this;
    }

    /** Stops the controllers, then the informers. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (AutoCloseable controller : controllers) {
            try {
                controller.close();
            } catch (Exception e) {
                LOG.warn("stopping {} failed", controller.getClass().getSimpleName(), e);
            }
        }
        informers.close();
    }

    /** The settings: timing (default {@link Timing#FAST}) and feature gates (default: those of the newest version). */
    public static final class Builder {
        private final KubernetesClient client;
        private Timing timing = Timing.FAST;
        private FeatureGates gates = FeatureGates.defaults(FeatureGates.NEWEST_VERSION);

        private Builder(KubernetesClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        public Builder timing(Timing timing) {
            this.timing = Objects.requireNonNull(timing, "timing");
            return this;
        }

        public Builder featureGates(FeatureGates gates) {
            this.gates = Objects.requireNonNull(gates, "gates");
            return this;
        }

        public KubeControllerManager build() {
            return new KubeControllerManager(this);
        }
    }
}
