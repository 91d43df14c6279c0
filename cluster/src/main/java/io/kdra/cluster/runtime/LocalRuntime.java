package io.kdra.cluster.runtime;

import io.kdra.cluster.kubelet.server.LogOptions;
import io.kdra.cluster.runtime.cdi.CdiEdits;
import io.kdra.cluster.runtime.cdi.CdiRegistry;
import io.kdra.cluster.runtime.cdi.UnresolvableCdiDevicesException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both local runtimes share: CDI resolution before a start, the container's environment, the instances by pod
 * (the latest and the previous of each container, for logs with {@code previous}), exec (with the driver proxy of
 * upstream's e2e run in the JVM, {@link HostPathPluginProxy}), the pods' ports, and the end of it all.
 */
abstract class LocalRuntime implements ContainerRuntime {

    /** containerd's PATH for images that set none. */
    static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private static final Logger LOG = LoggerFactory.getLogger(LocalRuntime.class);
    private static final long CLOSE_WAIT_SECONDS = 30;

    private final CdiRegistry cdi;
    private final Cgroups cgroups;
    private final PodPorts ports = new PodPorts();
    /** Pods by UID. */
    private final Map<String, Pod> pods = new HashMap<>();
    /** The UID of the pod of a namespace and name that started a container last. */
    private final Map<PodName, String> uids = new HashMap<>();
    private boolean closed;

    LocalRuntime(Path cdiDirectory, Cgroups cgroups) {
        this.cdi = new CdiRegistry(cdiDirectory);
        this.cgroups = cgroups;
    }

    @Override
    public Cgroups cgroups() {
        return cgroups;
    }

    /** The node's CDI specs, as this runtime resolves them. */
    public CdiRegistry cdi() {
        return cdi;
    }

    /**
     * Creates and starts one instance, after CDI resolution and the creation of its cgroup.
     *
     * @param paths the container paths its command and exec'd commands see at other paths of the node
     */
    abstract LocalContainer launch(ContainerConfig config, CdiEdits edits, ContainerPaths paths)
            throws ContainerStartException;

    /** A directory of the runtime's own for one container instance's files. */
    abstract Path stateDirectory(ContainerConfig config);

    /** An instance is no longer kept (two later ones are) and has ended. */
    void discard(LocalContainer instance) {}

    /** A removed pod's instances have all ended. */
    void removed(String podUid) {}

    /** {@link #close()} has stopped every instance. */
    void closed() {}

    @Override
    public final RunningContainer start(ContainerConfig config) throws ContainerStartException {
        synchronized (this) {
            if (closed) {
                throw new ContainerStartException("the container runtime has been closed");
            }
        }
        CdiEdits edits;
        try {
            edits = cdi.resolve(config.cdiDevices());
        } catch (UnresolvableCdiDevicesException e) {
            // containerd's words around the CDI library's
            throw new ContainerStartException(
                    "failed to create containerd container: CDI device injection failed: " + e.getMessage(), e);
        }
        LocalContainer container = launch(config, edits, createCgroup(config, edits));
        LocalContainer dropped;
        synchronized (this) {
            if (closed) {
                container.kill();
                throw new ContainerStartException("the container runtime has been closed");
            }
            PodContainer id = config.id();
            uids.put(new PodName(id.namespace(), id.pod()), config.podUid());
            dropped = pods.computeIfAbsent(config.podUid(), uid -> new Pod()).add(container);
        }
        if (dropped != null) {
            dropped.exit().whenComplete((code, error) -> discard(dropped));
        }
        return container;
    }

    /**
     * Creates the container's cgroup with its values and writes its {@code oom_score_adj} (which {@code /proc/1/}
     * shows), and returns the paths the container sees, its cgroup among them.
     */
    private ContainerPaths createCgroup(ContainerConfig config, CdiEdits edits) throws ContainerStartException {
        Path oomScoreAdj = stateDirectory(config).resolve("oom_score_adj");
        if (config.cgroup() != null) {
            try {
                Files.createDirectories(oomScoreAdj.getParent());
                Files.writeString(oomScoreAdj, config.cgroup().resources().oomScoreAdj() + "\n");
                cgroups.apply(config.cgroup().directory(), config.cgroup().resources());
            } catch (IOException e) {
                throw new ContainerStartException("failed to create the cgroup of container " + config.id() + ": "
                        + e, e);
            }
        }
        return ContainerPaths.of(edits.mounts(), config, oomScoreAdj, cgroups.placesProcesses());
    }

    @Override
    public void updateResources(PodContainer target, LinuxResources resources)
            throws ContainerNotFoundException, IOException {
        History history = history(target);
        if (history == null || !history.latest().running()) {
            throw new ContainerNotFoundException("container not found (\"" + target.container() + "\")");
        }
        ContainerConfig.Cgroup cgroup = history.latest().config().cgroup();
        if (cgroup != null) {
            cgroups.apply(cgroup.directory(), resources);
        }
    }

    @Override
    public synchronized List<RunningContainer> running() {
        List<RunningContainer> running = new ArrayList<>();
        for (Pod pod : pods.values()) {
            for (History history : pod.containers.values()) {
                history.instances().filter(LocalContainer::running).forEach(running::add);
            }
        }
        return running;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The runtime knows no pod specs: a container it has no instance of is taken to be waiting to start, as the
     * kubelet answers (400) for a pod of its node; a pod or container that is not on the node at all is refused before
     * (the API server checks the pod's spec and node, as the kubelet's server does with 404).
     */
    @Override
    public InputStream logs(PodContainer target, LogOptions options) throws ContainerUnavailableException, IOException {
        History history = history(target);
        if (options.previous()) {
            if (history == null || history.previous() == null) {
                throw new ContainerUnavailableException("previous terminated container \"" + target.container()
                        + "\" in pod \"" + target.pod() + "\" not found");
            }
            return history.previous().log().open(options);
        }
        if (history == null) {
            throw new ContainerUnavailableException("container \"" + target.container() + "\" in pod \""
                    + target.pod() + "\" is waiting to start: ContainerCreating");
        }
        return history.latest().log().open(options);
    }

    @Override
    public Process exec(PodContainer target, List<String> command) throws ContainerNotFoundException, IOException {
        History history = history(target);
        if (history == null || !history.latest().running()) {
            throw new ContainerNotFoundException("container not found (\"" + target.container() + "\")");
        }
        LocalContainer container = history.latest();
        if (HostPathPluginProxy.runs(command)) {
            return container.adopt(HostPathPluginProxy.start(command, container.config(), ports));
        }
        return container.exec(command, cgroups);
    }

    @Override
    public InetSocketAddress portAddress(String namespace, String pod, int port) throws ContainerNotFoundException {
        String uid;
        synchronized (this) {
            uid = uids.get(new PodName(namespace, pod));
        }
        if (uid == null) {
            throw new ContainerNotFoundException("pod \"" + pod + "\" has no container on this node");
        }
        return ports.find(uid, port).orElseGet(() -> new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    }

    @Override
    public void removePod(String podUid) {
        Pod pod;
        synchronized (this) {
            pod = pods.remove(podUid);
            uids.values().remove(podUid);
        }
        ports.removePod(podUid);
        if (pod == null) {
            return;
        }
        List<LocalContainer> instances = pod.instances();
        instances.forEach(LocalContainer::kill);
        CompletableFuture.allOf(instances.stream().map(LocalContainer::exit).toArray(CompletableFuture[]::new))
                .whenComplete((done, error) -> removed(podUid));
    }

    /** Kills every instance and its exec'd commands, waits until they are gone, then frees the runtime's files. */
    @Override
    public void close() {
        List<LocalContainer> instances = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            pods.values().forEach(pod -> instances.addAll(pod.instances()));
            pods.clear();
            uids.clear();
        }
        instances.forEach(LocalContainer::kill);
        try {
            CompletableFuture.allOf(instances.stream().map(LocalContainer::exit).toArray(CompletableFuture[]::new))
                    .get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("not every container ended within {} s of SIGKILL: {}", CLOSE_WAIT_SECONDS, e.toString());
        }
        closed();
        cgroups.close();
    }

    /**
     * A container's environment: a minimal base ({@code PATH} of this JVM, {@code HOME} the given directory,
     * {@code HOSTNAME} the pod's name, as containerd sets it), then the pod's variables, then the CDI edits, each
     * replacing variables of the same name, in containerd's order.
     */
    static Map<String, String> environment(ContainerConfig config, CdiEdits edits, Path home) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", DEFAULT_PATH));
        env.put("HOSTNAME", config.id().pod());
        env.put("HOME", home.toString());
        env.putAll(new TreeMap<>(config.env()));
        return edits.applyEnv(env);
    }

    /** Removes a directory and everything in it; a missing one is fine. */
    static void deleteTree(Path directory) {
        try {
            FileTrees.delete(directory);
        } catch (IOException e) {
            LOG.warn("could not remove {}: {}", directory, e.toString());
        }
    }

    private synchronized History history(PodContainer target) {
        String uid = uids.get(new PodName(target.namespace(), target.pod()));
        Pod pod = uid == null ? null : pods.get(uid);
        return pod == null ? null : pod.containers.get(target.container());
    }

    private record PodName(String namespace, String name) {}

    /** The latest instance of a container and the one before it. */
    private record History(LocalContainer previous, LocalContainer latest) {
        Stream<LocalContainer> instances() {
            return previous == null ? Stream.of(latest) : Stream.of(previous, latest);
        }
    }

    /** The containers of one pod UID; guarded by the runtime. */
    private static final class Pod {
        final Map<String, History> containers = new HashMap<>();

        /** Keeps a new instance as the latest; returns the instance that is no longer kept, if any. */
        LocalContainer add(LocalContainer instance) {
            History before = containers.get(instance.config().id().container());
            containers.put(instance.config().id().container(),
                    new History(before == null ? null : before.latest(), instance));
            return before == null ? null : before.previous();
        }

        List<LocalContainer> instances() {
            return containers.values().stream().flatMap(History::instances).toList();
        }
    }
}
