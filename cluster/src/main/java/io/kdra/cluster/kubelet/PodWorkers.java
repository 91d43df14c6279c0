package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.PodQosClass;
import io.kdra.kube.Quantity;
import io.kdra.kube.client.Informers;
import io.kdra.kube.client.UnreadWrites;
import io.kdra.cluster.EventRecorder;
import io.kdra.cluster.kubelet.server.ContainerStreams;
import io.kdra.cluster.kubelet.server.ContainerStreams.PodContainer;
import io.kdra.cluster.runtime.Cgroups;
import io.kdra.cluster.runtime.ContainerConfig;
import io.kdra.cluster.runtime.ContainerConfig.Mount;
import io.kdra.cluster.runtime.ContainerRuntime;
import io.kdra.cluster.runtime.ContainerRuntime.ContainerStartException;
import io.kdra.cluster.runtime.LinuxResources;
import io.kdra.cluster.runtime.RunningContainer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pods of one node: an informer on the pods bound to it, and one serialized worker per pod that drives its
 * lifecycle as the kubelet's pod workers and {@code SyncPod} do: prepare DRA resources (a failure is a Warning
 * {@code FailedPrepareDynamicResources} event and a retry with back-off), init containers one after the other, then
 * the containers, restarts by {@code restartPolicy} with crash-loop back-off, status through {@code pods/status}, and
 * termination (stop with the grace period, unprepare, then delete with grace 0 and the pod's UID as precondition).
 * Waits for container exits are callbacks, never a blocked thread.
 */
final class PodWorkers {

    private static final Logger LOG = LoggerFactory.getLogger(PodWorkers.class);
    private static final Duration MINIMUM_GRACE_PERIOD = Duration.ofSeconds(2);

    private final KubeletConfig config;
    private final KubernetesClient client;
    private final KubeletHost host;
    private final ContainerRuntime runtime;
    private final DraManager dra;
    private final EventRecorder events;
    private final ContainerEnvironment environment;
    private final Path cgroupRoot;
    private final long memoryCapacity;
    private final Set<String> nodeHugepages;
    private final Map<String, PodState> pods = new ConcurrentHashMap<>();
    /** Containers found running at start, by pod UID, until their pod shows up. */
    private final Map<String, List<RunningContainer>> adopted = new ConcurrentHashMap<>();
    private volatile boolean running;
    private SharedIndexInformer<Pod> informer;
    private ScheduledFuture<?> reconcile;
    private boolean orphansRemoved;

    PodWorkers(KubeletConfig config, KubernetesClient client, KubeletHost host, ContainerRuntime runtime,
            DraManager dra) {
        this.config = config;
        this.client = client;
        this.host = host;
        this.runtime = runtime;
        this.dra = dra;
        this.events = EventRecorder.on(client, "kubelet", config.nodeName(), host.executor());
        this.environment = new ContainerEnvironment(client, config.nodeName());
        this.cgroupRoot = runtime.cgroups().root();
        this.memoryCapacity = PodResourceConfig.units(PodResourceConfig.MEMORY,
                Quantity.parse(config.capacity().getOrDefault(PodResourceConfig.MEMORY, "0")));
        this.nodeHugepages = config.capacity().keySet().stream()
                .filter(name -> name.startsWith(PodResourceConfig.HUGEPAGES_PREFIX))
                .collect(Collectors.toSet());
    }

    /** Adopts the runtime's running containers, starts watching the node's pods and the DRA reconcile loop. */
    void start() {
        running = true;
        for (RunningContainer container : runtime.running()) {
            adopted.computeIfAbsent(container.config().podUid(), uid -> new ArrayList<>()).add(container);
        }
        informer = Informers.inform(client.pods().inAnyNamespace().withField("spec.nodeName", config.nodeName()),
                Informers.handler(this::upsert, this::removedFromApi));
        long period = config.timing().reconcilePeriod().toMillis();
        reconcile = host.executor().scheduleWithFixedDelay(this::reconcile, 0, period, TimeUnit.MILLISECONDS);
    }

    /** Stops watching and syncing; containers keep running, as they do when a real kubelet restarts. */
    void stop() {
        running = false;
        if (informer != null) {
            informer.stop();
        }
        if (reconcile != null) {
            reconcile.cancel(false);
        }
        for (PodState state : pods.values()) {
            synchronized (state) {
                if (state.retry != null) {
                    state.retry.cancel(false);
                }
            }
        }
        pods.clear();
        adopted.clear();
    }

    /**
     * Once the informer has listed the node's pods (upstream waits for its config sources the same way), removes the
     * sandboxes of pods that vanished while the kubelet was down and unprepares claims of pods no longer active.
     */
    private void reconcile() {
        if (!running || !informer.hasSynced()) {
            return;
        }
        try {
            if (!orphansRemoved) {
                removeOrphanedPods();
                orphansRemoved = true;
            }
            dra.reconcile(activePodUids());
        } catch (RuntimeException e) {
            LOG.warn("node {}: reconciling claims failed", config.nodeName(), e);
        }
    }

    /**
     * Pods whose claims are in use: every pod of the node the API knows, unless the kubelet has finished it (the
     * informer's store, not the workers, because workers are created asynchronously after the store is filled), and
     * the pods the kubelet is still terminating.
     */
    private Set<String> activePodUids() {
        Set<String> active = new HashSet<>();
        for (Pod pod : informer.getStore().list()) {
            PodState state = pods.get(pod.getMetadata().getUid());
            if (state == null || !state.finished) {
                active.add(pod.getMetadata().getUid());
            }
        }
        for (PodState state : pods.values()) {
            if (!state.finished) {
                active.add(state.uid);
            }
        }
        return active;
    }

    /** Device health changed for these pods: their container statuses are written again. */
    void healthChanged(Set<String> podUids) {
        for (String uid : podUids) {
            PodState state = pods.get(uid);
            if (state != null) {
                enqueue(state);
            }
        }
    }

    private void removeOrphanedPods() {
        Set<String> known = new HashSet<>();
        informer.getStore().list().forEach(pod -> known.add(pod.getMetadata().getUid()));
        for (var entry : adopted.entrySet()) {
            if (!known.contains(entry.getKey())) {
                // The pod is gone from the API: its sandbox goes too (its claims are the reconcile loop's).
                adopted.remove(entry.getKey());
                runtime.removePod(entry.getKey());
            }
        }
    }

    private void upsert(Pod pod) {
        if (!running) {
            return;
        }
        String uid = pod.getMetadata().getUid();
        PodState state = pods.get(uid);
        if (state == null) {
            PodState created = new PodState(pod, adopted.remove(uid));
            state = pods.putIfAbsent(uid, created);
            if (state == null) {
                state = created;
                for (ContainerRecord record : created.containers.values()) {
                    if (record.current != null) {
                        record.current.exit().whenComplete((code, error) -> enqueue(created));
                    }
                }
            }
        }
        state.pod = pod;
        enqueue(state);
    }

    private void removedFromApi(Pod pod) {
        PodState state = pods.get(pod.getMetadata().getUid());
        if (state != null) {
            state.apiDeleted = true;
            enqueue(state);
        }
    }

    private void enqueue(PodState state) {
        synchronized (state) {
            if (state.syncing) {
                state.dirty = true;
                return;
            }
            if (state.queued) {
                return;
            }
            state.queued = true;
        }
        host.executor().execute(() -> runSync(state));
    }

    private void retryLater(PodState state, Duration delay) {
        synchronized (state) {
            if (state.retry != null) {
                state.retry.cancel(false);
            }
            state.retry = host.executor().schedule(() -> enqueue(state), delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void runSync(PodState state) {
        synchronized (state) {
            state.queued = false;
            state.syncing = true;
            state.dirty = false;
        }
        try {
            if (running && pods.get(state.uid) == state) {
                sync(state);
            }
        } catch (RuntimeException e) {
            LOG.warn("node {}: syncing pod {} failed", config.nodeName(), state.key(), e);
            retryLater(state, config.timing().podRetryMaxBackoff());
        } finally {
            boolean again;
            synchronized (state) {
                state.syncing = false;
                again = state.dirty;
            }
            if (again) {
                enqueue(state);
            }
        }
    }

    private void sync(PodState state) {
        Pod pod = state.pod;
        collectExits(state);
        if (state.apiDeleted || pod.getMetadata().getDeletionTimestamp() != null) {
            terminate(state);
            return;
        }
        if (state.finished) {
            finishTerminalPod(state);
            return;
        }
        if (!state.prepared) {
            try {
                dra.prepare(pod);
                state.prepared = true;
                state.prepareBackoff = null;
            } catch (DraManager.DraException e) {
                if (!running) {
                    // stop() closed the plugin connections under the call; a stopped kubelet writes nothing
                    return;
                }
                LOG.info("node {}: preparing dynamic resources of pod {} failed: {}", config.nodeName(), state.key(),
                        e.getMessage());
                event(pod, null, EventRecorder.WARNING, "FailedPrepareDynamicResources",
                        "Failed to prepare dynamic resources: prepare dynamic resources: " + e.getMessage());
                state.prepareBackoff = nextBackoff(state.prepareBackoff, config.timing().podRetryInitialBackoff(),
                        config.timing().podRetryMaxBackoff());
                writeStatus(state);
                retryLater(state, state.prepareBackoff);
                return;
            }
        }
        try {
            applyResources(state);
        } catch (IOException e) {
            LOG.info("node {}: configuring the cgroups of pod {} failed: {}", config.nodeName(), state.key(),
                    e.getMessage());
            retryLater(state, config.timing().podRetryInitialBackoff());
            return;
        }
        if (state.startTime == null) {
            state.startTime = Instant.now();
        }
        String restartPolicy = pod.getSpec().getRestartPolicy() == null ? "Always" : pod.getSpec().getRestartPolicy();
        if (!state.initialized) {
            runInitContainers(state, restartPolicy);
        }
        if (state.initialized && !state.failed) {
            keepSidecarsRunning(state);
            for (Container container : pod.getSpec().getContainers()) {
                ContainerRecord record = state.record(container.getName(), false);
                if (record.current != null) {
                    continue;
                }
                if (record.lastTermination == null) {
                    startContainer(state, container, record);
                } else if (restarts(restartPolicy, record.lastTermination.exitCode())) {
                    restartWithBackoff(state, container, record);
                }
            }
        }
        state.phase = phase(state, restartPolicy);
        if ((state.phase.equals("Succeeded") || state.phase.equals("Failed")) && stopSidecars(state)) {
            // the pod ends once its sidecars stopped too; their exit brings the pod back here
            state.phase = "Running";
            writeStatus(state);
            return;
        }
        writeStatus(state);
        if (state.phase.equals("Succeeded") || state.phase.equals("Failed")) {
            state.finished = true;
            finishTerminalPod(state);
        }
    }

    /** A sidecar: an init container with {@code restartPolicy: Always}, running beside the containers. */
    static boolean isSidecar(Container container) {
        return "Always".equals(container.getRestartPolicy());
    }

    /** Sidecars restart whenever they exit, whatever the pod's restart policy, until the pod ends. */
    private void keepSidecarsRunning(PodState state) {
        for (Container container : state.pod.getSpec().getInitContainers()) {
            ContainerRecord record = state.record(container.getName(), true);
            if (isSidecar(container) && record.current == null && !state.sidecarsStopping) {
                restartWithBackoff(state, container, record);
            }
        }
    }

    /**
     * Stops the sidecars of a pod whose containers all ended.
     *
     * @return whether some still run
     */
    private boolean stopSidecars(PodState state) {
        boolean running = false;
        for (Container container : state.pod.getSpec().getInitContainers()) {
            ContainerRecord record = state.containers.get("init:" + container.getName());
            if (isSidecar(container) && record != null && record.current != null) {
                if (!state.sidecarsStopping) {
                    event(state.pod, container.getName(), EventRecorder.NORMAL, "Killing",
                            "Stopping container " + container.getName());
                    record.current.stop(gracePeriod(state.pod));
                }
                running = true;
            }
        }
        state.sidecarsStopping = true;
        return running;
    }

    private void runInitContainers(PodState state, String restartPolicy) {
        Pod pod = state.pod;
        for (Container container : pod.getSpec().getInitContainers()) {
            ContainerRecord record = state.record(container.getName(), true);
            if (isSidecar(container)) {
                // the next init container starts once the sidecar started (no startup probes here)
                if (record.current == null) {
                    if (record.lastTermination == null) {
                        startContainer(state, container, record);
                    } else {
                        restartWithBackoff(state, container, record);
                    }
                }
                if (record.current == null) {
                    return;
                }
                continue;
            }
            if (record.current != null) {
                return;
            }
            if (record.lastTermination == null) {
                startContainer(state, container, record);
                return;
            }
            if (record.lastTermination.exitCode() == 0) {
                continue;
            }
            if (restartPolicy.equals("Never")) {
                state.failed = true;
                return;
            }
            restartWithBackoff(state, container, record);
            return;
        }
        state.initialized = true;
    }

    private static boolean restarts(String restartPolicy, int exitCode) {
        return restartPolicy.equals("Always") || (restartPolicy.equals("OnFailure") && exitCode != 0);
    }

    /** The crash-loop back-off: the first restart is immediate, then the initial back-off doubling to the cap. */
    private void restartWithBackoff(PodState state, Container container, ContainerRecord record) {
        Instant now = Instant.now();
        if (record.restartAt == null) {
            if (record.backoff == null) {
                record.backoff = Duration.ZERO;
            } else {
                record.backoff = nextBackoff(record.backoff.isZero() ? null : record.backoff,
                        config.timing().containerRestartInitialBackoff(), config.timing().containerRestartMaxBackoff());
            }
            record.restartAt = now.plus(record.backoff);
        }
        if (record.restartAt.isAfter(now)) {
            String message = "back-off " + goDuration(record.backoff) + " restarting failed container="
                    + container.getName() + " pod=" + state.pod.getMetadata().getName() + "_"
                    + state.pod.getMetadata().getNamespace() + "(" + state.uid + ")";
            // A container that could not even be created keeps showing why while it waits.
            if (record.waitingReason == null) {
                event(state.pod, container.getName(), EventRecorder.WARNING, "BackOff",
                        "Back-off restarting failed container " + container.getName() + " in pod "
                        + state.pod.getMetadata().getName() + "_" + state.pod.getMetadata().getNamespace() + "("
                        + state.uid + ")");
            }
            if (record.waitingReason == null || record.waitingReason.equals("CrashLoopBackOff")) {
                record.waitingReason = "CrashLoopBackOff";
                record.waitingMessage = message;
            }
            retryLater(state, Duration.between(now, record.restartAt));
            return;
        }
        record.restartAt = null;
        record.restartCount++;
        startContainer(state, container, record);
    }

    private void startContainer(PodState state, Container container, ContainerRecord record) {
        Pod pod = state.pod;
        List<String> cdiDevices;
        Map<String, String> env;
        List<Mount> mounts;
        try {
            cdiDevices = dra.cdiDevices(pod, container);
            env = environment.environment(pod, container);
            mounts = hostPathMounts(pod, container);
        } catch (DraManager.DraException | ContainerEnvironment.ConfigException e) {
            failStart(state, container, record, "CreateContainerConfigError", e.getMessage());
            return;
        } catch (IOException e) {
            failStart(state, container, record, "CreateContainerConfigError",
                    "failed to prepare hostPath volumes: " + e.getMessage());
            return;
        }
        ContainerConfig containerConfig = new ContainerConfig(
                new PodContainer(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), container.getName()),
                state.uid, record.restartCount, container.getImage(), ContainerEnvironment.command(container, env),
                env, container.getWorkingDir(), cdiDevices, mounts, new ContainerConfig.Cgroup(
                        podCgroup(state).resolve(container.getName()),
                        state.resources.containers().get(container.getName())));
        RunningContainer started;
        try {
            started = runtime.start(containerConfig);
        } catch (ContainerStartException e) {
            failStart(state, container, record, "CreateContainerError", e.getMessage());
            return;
        }
        record.current = started;
        record.waitingReason = null;
        record.waitingMessage = null;
        event(pod, container.getName(), EventRecorder.NORMAL, "Created",
                "Created container: " + container.getName());
        event(pod, container.getName(), EventRecorder.NORMAL, "Started", "Started container " + container.getName());
        started.exit().whenComplete((code, error) -> enqueue(state));
    }

    /**
     * Computes the pod's and its containers' cgroup values from the pod's current spec (so again after an in-place
     * resize) and what its claims' devices add (the scheduler's entries in its status), writes the pod's cgroup and
     * hands changed values of running containers to the runtime, as the kubelet's pod container manager and
     * {@code UpdateContainerResources} do. Whether they are the kernel's is the runtime's {@link Cgroups}.
     */
    private void applyResources(PodState state) throws IOException {
        Pod pod = state.pod;
        state.claimAllocatable = config.featureGates().enabled(FeatureGates.DRA_NODE_ALLOCATABLE_RESOURCES)
                ? ClaimAllocatable.of(pod) : List.of();
        PodResourceConfig computed = PodResourceConfig.compute(pod, state.claimAllocatable, memoryCapacity,
                nodeHugepages, config.featureGates());
        if (computed.equals(state.resources)) {
            return;
        }
        PodResourceConfig previous = state.resources;
        state.resources = computed;
        runtime.cgroups().apply(podCgroup(state), computed.pod());
        for (ContainerRecord record : state.containers.values()) {
            LinuxResources resources = computed.containers().get(record.name);
            if (record.current != null && resources != null
                    && (previous == null || !resources.equals(previous.containers().get(record.name)))) {
                try {
                    runtime.updateResources(record.current.config().id(), resources);
                } catch (ContainerStreams.ContainerNotFoundException ended) {
                    // it ended meanwhile: its next instance starts with the new values
                }
            }
        }
    }

    /**
     * The pod's cgroup, as the kubelet's cgroupfs driver names it: {@code kubepods/pod<uid>} for a Guaranteed pod,
     * else below {@code kubepods/burstable} or {@code kubepods/besteffort}.
     */
    private Path podCgroup(PodState state) {
        Path kubepods = cgroupRoot.resolve("kubepods");
        String qos = state.resources.qosClass();
        Path parent = qos.equals(PodQosClass.GUARANTEED) ? kubepods
                : kubepods.resolve(qos.toLowerCase(Locale.ROOT));
        return parent.resolve("pod" + state.uid);
    }

    /**
     * The container's mounts of hostPath volumes, each at the node's directory for that host path
     * ({@link KubeletConfig#hostPath}); a {@code DirectoryOrCreate} directory is created as the kubelet does. Other
     * volume types have no files here and are not mounted.
     */
    private List<Mount> hostPathMounts(Pod pod, Container container) throws IOException {
        Map<String, Volume> volumes = new HashMap<>();
        if (pod.getSpec().getVolumes() != null) {
            pod.getSpec().getVolumes().forEach(volume -> volumes.put(volume.getName(), volume));
        }
        List<Mount> mounts = new ArrayList<>();
        for (VolumeMount volumeMount : container.getVolumeMounts() == null ? List.<VolumeMount>of()
                : container.getVolumeMounts()) {
            Volume volume = volumes.get(volumeMount.getName());
            if (volume == null || volume.getHostPath() == null) {
                continue;
            }
            Path host = nodePath(volume.getHostPath().getPath());
            if ("DirectoryOrCreate".equals(volume.getHostPath().getType())) {
                Files.createDirectories(host);
            }
            String subPath = volumeMount.getSubPath();
            mounts.add(new Mount(volumeMount.getMountPath(),
                    subPath == null || subPath.isEmpty() ? host : host.resolve(subPath)));
        }
        return mounts;
    }

    /** Where a host path of the node lies: the node's cgroups are the runtime's, anything else as configured. */
    private Path nodePath(String hostPath) {
        Path path = Path.of(hostPath).normalize();
        Path cgroups = Path.of(Cgroups.MOUNT_POINT);
        return path.startsWith(cgroups) ? cgroupRoot.resolve(cgroups.relativize(path).toString())
                : config.hostPath(hostPath);
    }

    /**
     * Records an event about the pod, or one of its containers (named by {@code involvedObject.fieldPath}, as the
     * kubelet does).
     *
     * @param container the container's name, or null for the pod
     */
    private void event(Pod pod, String container, String type, String reason, String message) {
        String fieldPath = null;
        if (container != null) {
            boolean init = pod.getSpec().getInitContainers().stream().anyMatch(c -> c.getName().equals(container));
            fieldPath = (init ? "spec.initContainers{" : "spec.containers{") + container + "}";
        }
        events.record(new ObjectReferenceBuilder().withApiVersion("v1").withKind("Pod")
                .withNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid()).withFieldPath(fieldPath).build(), type, reason, message);
    }

    private void failStart(PodState state, Container container, ContainerRecord record, String reason,
            String message) {
        record.waitingReason = reason;
        record.waitingMessage = message;
        event(state.pod, container.getName(), EventRecorder.WARNING, "Failed", "Error: " + message);
        record.startBackoff = nextBackoff(record.startBackoff, config.timing().podRetryInitialBackoff(),
                config.timing().podRetryMaxBackoff());
        retryLater(state, record.startBackoff);
    }

    /** Records the end of container instances that exited since the last sync. */
    private void collectExits(PodState state) {
        for (ContainerRecord record : state.containers.values()) {
            RunningContainer current = record.current;
            if (current == null || !current.exit().isDone()) {
                continue;
            }
            int code = current.exit().handle((exit, error) -> exit == null ? 137 : exit).join();
            Instant finished = Instant.now();
            record.lastTermination = new Termination(code, code == 0 ? "Completed" : "Error", current.startedAt(),
                    finished, containerId(state.uid, record.name, current.config().attempt()));
            record.current = null;
            // A container that ran for long enough starts its crash-loop back-off over.
            if (Duration.between(current.startedAt(), finished)
                    .compareTo(config.timing().containerRestartMaxBackoff().multipliedBy(2)) > 0) {
                record.backoff = null;
            }
        }
    }

    private String phase(PodState state, String restartPolicy) {
        Pod pod = state.pod;
        if (state.failed) {
            return "Failed";
        }
        if (!state.initialized) {
            return "Pending";
        }
        boolean anyRunning = false;
        boolean allDone = true;
        boolean anyFailed = false;
        for (Container container : pod.getSpec().getContainers()) {
            ContainerRecord record = state.containers.get(container.getName());
            if (record == null) {
                allDone = false;
                continue;
            }
            if (record.current != null) {
                anyRunning = true;
                allDone = false;
            } else if (record.lastTermination == null || restarts(restartPolicy, record.lastTermination.exitCode())) {
                allDone = false;
                if (record.lastTermination != null) {
                    anyRunning = true;
                }
            } else if (record.lastTermination.exitCode() != 0) {
                anyFailed = true;
            }
        }
        if (allDone) {
            return anyFailed ? "Failed" : "Succeeded";
        }
        return anyRunning ? "Running" : "Pending";
    }

    /** A finished pod's claims are unprepared; its API object stays until someone deletes it. */
    private void finishTerminalPod(PodState state) {
        if (state.unprepared) {
            return;
        }
        try {
            dra.unprepare(state.pod);
            state.unprepared = true;
        } catch (DraManager.DraException e) {
            LOG.info("node {}: unpreparing resources of finished pod {} failed, retrying: {}", config.nodeName(),
                    state.key(), e.getMessage());
            state.unprepareBackoff = nextBackoff(state.unprepareBackoff, config.timing().podRetryInitialBackoff(),
                    config.timing().podRetryMaxBackoff());
            retryLater(state, state.unprepareBackoff);
        }
    }

    /**
     * Termination: stop every container with the pod's grace period, wait for them (callbacks re-run this), unprepare
     * the claims after all containers stopped and before the API object goes, then delete the object with grace 0
     * and the UID precondition.
     */
    private void terminate(PodState state) {
        Pod pod = state.pod;
        if (!state.killed) {
            state.killed = true;
            Duration grace = gracePeriod(pod);
            for (ContainerRecord record : state.containers.values()) {
                if (record.current != null) {
                    event(pod, record.name, EventRecorder.NORMAL, "Killing",
                            "Stopping container " + record.name);
                    record.current.stop(grace);
                }
            }
        }
        if (state.containers.values().stream().anyMatch(record -> record.current != null)) {
            return;
        }
        if (!state.unprepared) {
            try {
                dra.unprepare(pod);
                state.unprepared = true;
            } catch (DraManager.DraException e) {
                LOG.info("node {}: unpreparing resources of terminating pod {} failed, retrying: {}",
                        config.nodeName(), state.key(), e.getMessage());
                state.unprepareBackoff = nextBackoff(state.unprepareBackoff, config.timing().podRetryInitialBackoff(),
                        config.timing().podRetryMaxBackoff());
                retryLater(state, state.unprepareBackoff);
                return;
            }
        }
        state.finished = true;
        if (!state.apiDeleted) {
            if (!state.phase.equals("Succeeded") && !state.phase.equals("Failed")) {
                state.phase = "Failed";
            }
            writeStatus(state);
            deleteFromApi(pod);
        }
        pods.remove(state.uid, state);
        runtime.removePod(state.uid);
        if (state.resources != null) {
            try {
                runtime.cgroups().remove(podCgroup(state));
            } catch (IOException | UncheckedIOException e) {
                LOG.warn("node {}: could not remove the cgroup of pod {}: {}", config.nodeName(), state.key(),
                        e.toString());
            }
        }
    }

    private Duration gracePeriod(Pod pod) {
        Long seconds = pod.getMetadata().getDeletionGracePeriodSeconds();
        if (seconds == null) {
            seconds = pod.getSpec().getTerminationGracePeriodSeconds();
        }
        Duration grace = Duration.ofSeconds(seconds == null ? 30 : seconds);
        return grace.compareTo(MINIMUM_GRACE_PERIOD) < 0 ? MINIMUM_GRACE_PERIOD : grace;
    }

    /** The status manager's final delete: grace 0, only this pod (a new pod of the same name has another UID). */
    private void deleteFromApi(Pod pod) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String body = "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"gracePeriodSeconds\":0,"
                + "\"preconditions\":{\"uid\":\"" + pod.getMetadata().getUid() + "\"}}";
        HttpClient http = client.getHttpClient();
        String url = client.getMasterUrl().toString().replaceAll("/$", "") + "/api/v1/namespaces/" + namespace
                + "/pods/" + name;
        try {
            HttpResponse<String> response = http.sendAsync(http.newHttpRequestBuilder().uri(url)
                    .delete("application/json", body).build(), String.class).get(30, TimeUnit.SECONDS);
            if (response.code() >= 300 && response.code() != 404 && response.code() != 409) {
                LOG.info("node {}: deleting pod {}/{} answered {}: {}", config.nodeName(), namespace, name,
                        response.code(), response.body());
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.info("node {}: deleting pod {}/{} failed: {}", config.nodeName(), namespace, name, e.toString());
        }
    }

    private void writeStatus(PodState state) {
        if (!running || state.apiDeleted) {
            return;
        }
        Map<String, Object> status = PodStatusWriter.status(state, dra);
        Map<String, Object> patch = Map.of("metadata", Map.of("uid", state.uid), "status", status);
        String json = client.getKubernetesSerialization().asJson(patch);
        if (json.equals(state.lastStatus)) {
            return;
        }
        try {
            UnreadWrites.patch(client, Pod.class, state.namespace, state.name, "status", PatchType.STRATEGIC_MERGE,
                    json, null);
            state.lastStatus = json;
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                LOG.info("node {}: writing the status of pod {} failed: {}", config.nodeName(), state.key(),
                        e.getMessage());
                retryLater(state, config.timing().podRetryInitialBackoff());
            }
        }
    }

    static String containerId(String podUid, String container, int attempt) {
        return "kdra://" + podUid + "/" + container + "/" + attempt;
    }

    private static Duration nextBackoff(Duration previous, Duration initial, Duration max) {
        if (previous == null) {
            return initial;
        }
        Duration doubled = previous.multipliedBy(2);
        return doubled.compareTo(max) > 0 ? max : doubled;
    }

    /** A duration as Go prints it in back-off messages ({@code 10s}, {@code 2m40s}, {@code 200ms}). */
    static String goDuration(Duration duration) {
        if (duration.compareTo(Duration.ofSeconds(1)) < 0) {
            return duration.toMillis() + "ms";
        }
        long seconds = duration.getSeconds();
        String millis = duration.toMillisPart() == 0 ? "" : String.format(".%03d", duration.toMillisPart())
                .replaceAll("0+$", "");
        return (seconds >= 60 ? seconds / 60 + "m" : "") + seconds % 60 + millis + "s";
    }

    /** How one container instance ended. */
    record Termination(int exitCode, String reason, Instant startedAt, Instant finishedAt, String containerId) {}

    /** The kubelet's view of one container of a pod. */
    static final class ContainerRecord {
        final String name;
        final boolean init;
        RunningContainer current;
        int restartCount;
        Termination lastTermination;
        String waitingReason;
        String waitingMessage;
        Duration backoff;
        Instant restartAt;
        Duration startBackoff;

        ContainerRecord(String name, boolean init) {
            this.name = name;
            this.init = init;
        }
    }

    /** One pod's worker state; fields other than the scheduling flags are only touched by its (serial) syncs. */
    static final class PodState {
        final String uid;
        final String namespace;
        final String name;
        volatile Pod pod;
        volatile boolean apiDeleted;
        /** Guarded by this. */
        boolean queued;
        boolean syncing;
        boolean dirty;
        ScheduledFuture<?> retry;

        final Map<String, ContainerRecord> containers = new LinkedHashMap<>();
        boolean prepared;
        /** What the pod's claims add to its node resources, as the scheduler recorded it in the pod's status. */
        List<ClaimAllocatable> claimAllocatable;
        /** The cgroup values in force, for the pod's spec as last synced. */
        PodResourceConfig resources;
        Duration prepareBackoff;
        Duration unprepareBackoff;
        boolean initialized;
        boolean failed;
        boolean killed;
        /** The containers ended and the sidecars are being stopped; they are not restarted any more. */
        boolean sidecarsStopping;
        boolean unprepared;
        volatile boolean finished;
        Instant startTime;
        String phase = "Pending";
        String lastStatus;
        final Map<String, Map.Entry<String, String>> conditions = new HashMap<>();

        PodState(Pod pod, List<RunningContainer> adopted) {
            this.uid = pod.getMetadata().getUid();
            this.namespace = pod.getMetadata().getNamespace();
            this.name = pod.getMetadata().getName();
            this.pod = pod;
            String apiPhase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
            if ("Succeeded".equals(apiPhase) || "Failed".equals(apiPhase)) {
                // Finished before this kubelet (re)started: nothing runs again, claims may still need unpreparing.
                phase = apiPhase;
                finished = true;
                prepared = true;
                initialized = true;
            }
            if (adopted != null && !adopted.isEmpty()) {
                // A restarted kubelet finds the pod's sandbox running: no new prepare, the running instances go on.
                prepared = true;
                startTime = pod.getStatus() != null && pod.getStatus().getStartTime() != null
                        ? Instant.parse(pod.getStatus().getStartTime()) : Instant.now();
                for (RunningContainer container : adopted) {
                    String containerName = container.config().id().container();
                    boolean init = pod.getSpec().getInitContainers().stream()
                            .anyMatch(c -> c.getName().equals(containerName));
                    ContainerRecord record = record(containerName, init);
                    record.current = container;
                    record.restartCount = container.config().attempt();
                    if (!init) {
                        initialized = true;
                    }
                }
                if (initialized) {
                    for (Container init : pod.getSpec().getInitContainers()) {
                        record(init.getName(), true).lastTermination = new Termination(0, "Completed", startTime,
                                startTime, containerId(uid, init.getName(), 0));
                    }
                }
            }
        }

        ContainerRecord record(String containerName, boolean init) {
            return containers.computeIfAbsent((init ? "init:" : "") + containerName,
                    key -> new ContainerRecord(containerName, init));
        }

        String key() {
            return namespace + "/" + name;
        }
    }
}
