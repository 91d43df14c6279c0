package io.kdra.framework;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.plugin.metadata.MetadataVersion;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Slice;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.CallRecorder;
import io.kdra.testdriver.ExamplePlugin;
import io.kdra.testdriver.GrpcCall;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRA test driver deployed for one spec (upstream's {@code utils.Driver}): one {@link ExamplePlugin} per node,
 * running in the test JVM and serving that node's kubelet, named {@code <namespace><nameSuffix>.k8s.io}. Every gRPC
 * call on both sockets of every node is counted ({@link #callCount}) and can be made to fail ({@link #fail}) before it
 * reaches the driver:
 *
 * <pre>{@code
 * driver.fail(new MethodInstance(driver.nodeNames().get(0), MethodInstance.NODE_PREPARE_RESOURCES_V1), true);
 * }</pre>
 *
 * Knobs are set right after {@link #create} or {@link #instance}, before the driver runs.
 */
public final class Driver {

    private static final Logger LOG = LoggerFactory.getLogger(Driver.class);
    /**
     * A driver name longer than 28 characters, for the rolling-update socket path regression spec (upstream's
     * {@code LongRollingUpdateDriverName}; the value as in a fork of upstream, the upstream one was not readable).
     */
    public static final String LONG_ROLLING_UPDATE_DRIVER_NAME = "gpu.dra-example-driver.sigs.k8s.io";

    private final Framework framework;
    private String name;
    private String nameSuffix = "";
    private String instanceSuffix = "";
    private boolean rollingUpdate;
    private boolean nodeV1alpha4;
    private boolean nodeV1beta1 = true;
    private boolean nodeV1 = true;
    private boolean healthV1alpha1 = true;
    private boolean healthV1 = true;
    private boolean explicitName;
    private String reconcilePoolWithName;
    private boolean usePrivilegedClient;
    private boolean enableDeviceMetadata;
    private List<MetadataVersion> deviceMetadataVersions = List.of();
    private boolean withKubelet = true;
    private boolean expectResourceSliceRemoval = true;
    /** How many of each node's latest gRPC calls a failure report shows. */
    private static final int RECENT_CALLS = 20;
    private PluginFactory pluginFactory;
    private final Map<String, NodePlugin> nodes = Collections.synchronizedMap(new TreeMap<>());
    private final Map<MethodInstance, AtomicLong> callCounts = FaultInjector.newCallCounts();
    private final Set<MethodInstance> failing = ConcurrentHashMap.newKeySet();
    private final List<Step> cleanup = new ArrayList<>();

    private Driver(Framework framework) {
        this.framework = framework;
        framework.diagnostic(() -> "recent gRPC calls of driver " + name + instanceSuffix, this::recentCalls);
    }

    /**
     * A driver that runs before each spec on the given nodes with the generated resources, changed by the mutators
     * (upstream's {@code NewDriver}), and is torn down after it.
     */
    public static Driver create(Framework framework, Nodes nodes, Resources.Generator resources,
            Resources.Mutator... mutators) {
        Driver driver = new Driver(framework);
        framework.beforeEach("run driver", () -> {
            driver.initName();
            Map<String, DriverResources> generated = resources.apply(nodes);
            for (Resources.Mutator mutator : mutators) {
                generated = mutator.apply(generated);
            }
            driver.run(nodes, generated);
        });
        return driver;
    }

    /** A driver that is not running yet, for specs that start it themselves (upstream's {@code NewDriverInstance}). */
    public static Driver instance(Framework framework) {
        Driver driver = new Driver(framework);
        driver.initName();
        return driver;
    }

    private void initName() {
        if (!explicitName) {
            name = framework.namespace() + nameSuffix + ".k8s.io";
        }
    }

    private String recentCalls() {
        StringBuilder calls = new StringBuilder();
        nodes().forEach((nodeName, plugin) -> {
            List<GrpcCall> all = plugin.grpcCalls();
            List<GrpcCall> recent = all.subList(Math.max(0, all.size() - RECENT_CALLS), all.size());
            for (GrpcCall call : recent) {
                calls.append(nodeName).append(' ').append(call.fullMethod()).append(' ')
                        .append(call.inProgress() ? "in progress" : call.failed() ? "failed: " + call.error() : "OK")
                        .append('\n');
            }
        });
        return calls.toString();
    }

    /** A different driver in the same namespace: changes the driver, class, pod and claim names. */
    public Driver nameSuffix(String suffix) {
        this.nameSuffix = suffix;
        if (name != null && !explicitName) {
            initName();
        }
        return this;
    }

    public String nameSuffix() {
        return nameSuffix;
    }

    /** Another instance of the same driver (for updates); the sockets stay the same unless {@link #rollingUpdate}. */
    public Driver instanceSuffix(String suffix) {
        this.instanceSuffix = suffix;
        return this;
    }

    /** Sockets unique per instance and calls serialized across instances; needs a 1.33+ kubelet. */
    public Driver rollingUpdate(boolean enabled) {
        this.rollingUpdate = enabled;
        return this;
    }

    /** Serve {@code v1alpha3.Node} too (kubelets 1.31 to 1.33); off by default. */
    public Driver nodeV1alpha4(boolean enabled) {
        this.nodeV1alpha4 = enabled;
        return this;
    }

    /** Serve the v1beta1 DRA service; on by default. */
    public Driver nodeV1beta1(boolean enabled) {
        this.nodeV1beta1 = enabled;
        return this;
    }

    /** Serve the v1 DRA service; on by default. */
    public Driver nodeV1(boolean enabled) {
        this.nodeV1 = enabled;
        return this;
    }

    /** Serve the v1alpha1 DRAResourceHealth service; on by default. */
    public Driver healthV1alpha1(boolean enabled) {
        this.healthV1alpha1 = enabled;
        return this;
    }

    public boolean healthV1alpha1() {
        return healthV1alpha1;
    }

    /** Serve the v1 DRAResourceHealth service; on by default. */
    public Driver healthV1(boolean enabled) {
        this.healthV1 = enabled;
        return this;
    }

    public boolean healthV1() {
        return healthV1;
    }

    /**
     * The plugins publish only this pool, without node name, so that a node publishes a pool the whole cluster sees
     * (upstream's {@code ReconcilePoolWithName}); the generated pool must then select its nodes.
     */
    public Driver reconcilePoolWithName(String poolName) {
        this.reconcilePoolWithName = poolName;
        return this;
    }

    /**
     * The plugins use the cluster-admin client instead of their node-bound identity, which may only write slices
     * of its own node (upstream's {@code UsePrivilegedClient}).
     */
    public Driver usePrivilegedClient(boolean enabled) {
        this.usePrivilegedClient = enabled;
        return this;
    }

    /**
     * The plugins write device metadata files for prepared claims, mounted into the containers that use them
     * (upstream's {@code EnableDeviceMetadata}); needs {@link #deviceMetadataVersions}. Off by default.
     */
    public Driver enableDeviceMetadata(boolean enabled) {
        this.enableDeviceMetadata = enabled;
        return this;
    }

    /** The versions each device metadata file holds, newest first (upstream's {@code DeviceMetadataVersions}). */
    public Driver deviceMetadataVersions(MetadataVersion... versions) {
        this.deviceMetadataVersions = List.of(versions);
        return this;
    }

    /**
     * Without a kubelet (default with), nothing registers with the kubelets, {@link Builder#testPod} only waits for
     * scheduling, and the spec deletes the ResourceSlices.
     */
    public Driver withKubelet(boolean enabled) {
        this.withKubelet = enabled;
        return this;
    }

    public boolean withKubelet() {
        return withKubelet;
    }

    /** Whether the last cleanup waits until the driver's ResourceSlices are gone; default true. */
    public Driver expectResourceSliceRemoval(boolean enabled) {
        this.expectResourceSliceRemoval = enabled;
        return this;
    }

    /**
     * Runs the spec's own plugin on every node instead of the test driver (see {@link PluginFactory}); before the
     * driver runs.
     */
    public Driver plugin(PluginFactory factory) {
        this.pluginFactory = factory;
        return this;
    }

    /** Sets the driver name instead of {@code <namespace><nameSuffix>.k8s.io}; before the driver runs. */
    public Driver name(String driverName) {
        this.name = driverName;
        this.explicitName = true;
        return this;
    }

    /** {@code <namespace><nameSuffix>.k8s.io}, known once the spec's setup ran. */
    public String name() {
        return name;
    }

    /** The service account the driver's pods would run as; its node-bound token is the driver's identity. */
    public String serviceAccountName() {
        return "dra-kubelet-plugin-" + name + instanceSuffix + "-service-account";
    }

    /** The per-node plugins by node name. */
    public Map<String, NodePlugin> nodes() {
        synchronized (nodes) {
            return Map.copyOf(nodes);
        }
    }

    public NodePlugin node(String nodeName) {
        NodePlugin plugin = nodes.get(nodeName);
        if (plugin == null) {
            throw new IllegalArgumentException("driver " + name + " does not run on node " + nodeName
                    + "; it runs on " + nodeNames());
        }
        return plugin;
    }

    /** The nodes the driver runs on, sorted (upstream's {@code Nodenames}). */
    public List<String> nodeNames() {
        synchronized (nodes) {
            return List.copyOf(nodes.keySet());
        }
    }

    /** How many calls of this method reached this node's sockets, failed ones included. */
    public long callCount(MethodInstance method) {
        AtomicLong count = callCounts.get(method);
        return count == null ? 0 : count.get();
    }

    /** Makes calls of this method on this node fail with {@code injected error}, or lets them through again. */
    public void fail(MethodInstance method, boolean injectError) {
        if (injectError) {
            failing.add(method);
        } else {
            failing.remove(method);
        }
    }

    /** Lists this driver's ResourceSlices, for waits: {@code await().until(driver.getSlices(), hasSize(1))}. */
    public Callable<List<ResourceSlice>> getSlices() {
        KubernetesClient client = framework.client();
        String driverName = name;
        return () -> client.resources(ResourceSlice.class).withField("spec.driver", driverName).list().getItems();
    }

    /** {@link #setUp}, with {@link #tearDown} as a cleanup (upstream's {@code Run}). */
    public void run(Nodes onNodes, Map<String, DriverResources> resources) throws IOException {
        setUp(onNodes, resources);
        framework.cleanup("tear down driver " + name + instanceSuffix, this::tearDown);
    }

    /**
     * Starts the driver on every node of {@code onNodes}: node-local resources are published by each node's plugin
     * through its node-bound identity, {@link Resources#MULTI_HOST} pools by the framework; then waits until every
     * kubelet registered its plugin.
     */
    public void setUp(Nodes onNodes, Map<String, DriverResources> resources) throws IOException {
        initName();
        framework.backend().nodeAccessUnavailable().ifPresent(reason -> Assumptions.abort(reason));
        KubernetesClient admin = framework.client();
        if (expectResourceSliceRemoval) {
            framework.cleanupWait("wait until the ResourceSlices of " + name + " are gone", this::isGone);
        }
        DriverResources multiHost = resources.get(Resources.MULTI_HOST);
        // the kubelet wipes only slices with its node name
        if (multiHost != null || !withKubelet || reconcilePoolWithName != null) {
            String driverName = name;
            framework.cleanup("delete the ResourceSlices of " + name,
                    () -> admin.resources(ResourceSlice.class).withField("spec.driver", driverName).delete());
        }
        if (multiHost != null) {
            publishMultiHost(admin, multiHost);
        }
        grantPluginPermissions(admin);
        DriverDeployment deployment = framework.backend().deploy(new DriverInstance(framework.namespace(), name,
                name + instanceSuffix, nameSuffix + instanceSuffix, serviceAccountName(), onNodes.nodeNames(),
                withKubelet));
        // also when setUp fails, or the run is interrupted while it waits for the plugins: then no tearDown is registered
        // yet, so this stops the plugins first (their proxies remove the sockets through the pods) if nothing did
        framework.cleanup("remove the deployment of driver " + name + instanceSuffix, () -> {
            tearDown();
            deployment.close();
        });
        try {
            for (String nodeName : onNodes.nodeNames()) {
                startPlugin(onNodes, nodeName, resources.get(nodeName), deployment.node(nodeName));
            }
            // as upstream's TearDown scales the proxy pods down after stopping the plugins
            cleanup.add(deployment::close);
            if (withKubelet) {
                Waits.until("kubelet plugin registration of " + name, framework.timeouts().pluginRegistration())
                        .until(() -> nodes().values().stream()
                                .allMatch(plugin -> CallMatcher.beRegistered().test(plugin.grpcCalls())));
            }
        } catch (IOException | RuntimeException e) {
            // the spec's cleanups do not stop plugins that setUp started before it failed
            try {
                tearDown();
            } catch (RuntimeException stopping) {
                e.addSuppressed(stopping);
            }
            throw e;
        }
        LOG.info("driver {}{} runs on {}", name, instanceSuffix, nodeNames());
    }

    /**
     * The kubelet plugin's RBAC, as upstream's {@code plugin-permissions.yaml} gives its service account: read claims
     * and nodes, manage slices, write claim status, and write {@code status.devices} of this driver on claims
     * allocated on the plugin's own node ({@code associated-node} verbs on {@code resourceclaims/driver}).
     */
    private void grantPluginPermissions(KubernetesClient admin) {
        String role = name + instanceSuffix + "-kubelet-plugin";
        admin.resource(new ClusterRoleBuilder().withNewMetadata().withName(role).endMetadata()
                .addNewRule().withApiGroups("resource.k8s.io").withResources("resourceclaims").withVerbs("get")
                .endRule()
                .addNewRule().withApiGroups("resource.k8s.io").withResources("resourceclaims/status")
                .withVerbs("get", "patch", "update").endRule()
                .addNewRule().withApiGroups("resource.k8s.io").withResources("resourceclaims/driver")
                .withVerbs("associated-node:patch", "associated-node:update").withResourceNames(name).endRule()
                .addNewRule().withApiGroups("").withResources("nodes").withVerbs("get").endRule()
                .addNewRule().withApiGroups("resource.k8s.io").withResources("resourceslices")
                .withVerbs("get", "list", "watch", "create", "update", "patch", "delete").endRule()
                .build()).create();
        admin.resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(role).endMetadata()
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(role)
                .endRoleRef().addNewSubject().withKind("ServiceAccount").withName(serviceAccountName())
                .withNamespace(framework.namespace()).endSubject().build()).create();
        framework.cleanup("delete the kubelet plugin permissions of " + name, () -> {
            admin.rbac().clusterRoleBindings().withName(role).delete();
            admin.rbac().clusterRoles().withName(role).delete();
        });
    }

    /**
     * A client with the identity of this driver's kubelet plugin in the given pod, bound to the pod's node as a
     * projected service account token is (upstream's {@code ImpersonateKubeletPlugin}): so the plugin's permissions
     * and the node-bound rules apply to it. The pod need not exist. The client is closed after the spec.
     */
    public KubernetesClient impersonateKubeletPlugin(Pod pod) {
        initName();
        String namespace = pod.getMetadata().getNamespace();
        Config config = new ConfigBuilder(framework.client().getConfiguration())
                .withImpersonateUsername("system:serviceaccount:" + namespace + ":" + serviceAccountName())
                .withImpersonateGroups("system:serviceaccounts", "system:serviceaccounts:" + namespace)
                // header names cannot hold the keys' slash: escaped as client-go does, the server unescapes them
                .withImpersonateExtras(Map.of(
                        "authentication.kubernetes.io%2Fpod-name", List.of(pod.getMetadata().getName()),
                        "authentication.kubernetes.io%2Fpod-uid", List.of(pod.getMetadata().getUid()),
                        "authentication.kubernetes.io%2Fnode-name", List.of(pod.getSpec().getNodeName())))
                .build();
        KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
        framework.cleanup("close the client of kubelet plugin " + pod.getMetadata().getName(), client::close);
        return client;
    }

    private void publishMultiHost(KubernetesClient admin, DriverResources multiHost) {
        multiHost.pools().forEach((poolName, pool) -> {
            List<Slice> slices = pool.slices();
            for (int i = 0; i < slices.size(); i++) {
                ResourceSliceBuilder slice = new ResourceSliceBuilder()
                        .withNewMetadata().withName(name + "-" + i).endMetadata()
                        .withNewSpec().withDriver(name)
                        .withNewPool().withName(poolName).withGeneration(pool.generation())
                        .withResourceSliceCount((long) slices.size()).endPool()
                        .withNodeSelector(pool.nodeSelector())
                        .withAllNodes(pool.allNodes() ? Boolean.TRUE : null)
                        .withDevices(slices.get(i).devices())
                        .withSharedCounters(slices.get(i).sharedCounters().isEmpty() ? null
                                : slices.get(i).sharedCounters())
                        .endSpec();
                admin.resource(slice.build()).create();
            }
        });
    }

    private void startPlugin(Nodes onNodes, String nodeName, DriverResources nodeResources, NodeAccess access)
            throws IOException {
        KubernetesClient client = usePrivilegedClient ? framework.client()
                : access.driverClient(framework.namespace(), serviceAccountName());
        FaultInjector injector = new FaultInjector(nodeName, callCounts, failing);
        String instanceUid = UUID.randomUUID().toString();
        if (pluginFactory != null) {
            startOwnPlugin(onNodes, nodeName, nodeResources, access, client, injector, instanceUid);
            return;
        }
        ExamplePlugin.Builder builder = ExamplePlugin.builder(name, access.cdiFiles())
                .nodeName(nodeName)
                .kubernetesClient(client)
                .driverResources(nodeResources)
                .pluginOptions(plugin -> configure(plugin, access, onNodes, injector, instanceUid));
        ExamplePlugin plugin = builder.start();
        nodes.put(nodeName, NodePlugin.testDriver(nodeName, plugin, client));
        cleanup.add(plugin::stop);
    }

    private void startOwnPlugin(Nodes onNodes, String nodeName, DriverResources nodeResources, NodeAccess access,
            KubernetesClient client, FaultInjector injector, String instanceUid) throws IOException {
        PreparedClaimsTracker tracked = new PreparedClaimsTracker(pluginFactory.create(name, nodeName, access));
        CallRecorder recorder = new CallRecorder();
        KubeletPlugin.Builder builder = KubeletPlugin.builder(name, tracked).nodeName(nodeName).kubernetesClient(client);
        configure(builder, access, onNodes, injector, instanceUid);
        builder.unaryInterceptor(recorder).streamInterceptor(recorder);
        KubeletPlugin plugin = builder.start();
        cleanup.add(plugin::stop);
        if (nodeResources != null) {
            plugin.publishResources(nodeResources);
        }
        nodes.put(nodeName, new NodePlugin(nodeName, client, null, recorder::calls, tracked::prepared));
    }

    private void configure(KubeletPlugin.Builder plugin, NodeAccess access, Nodes onNodes, FaultInjector injector,
            String instanceUid) {
        // the ExamplePlugin adds its call recorder after these options, so the injector is outermost
        plugin.registrarDirectory(access.pluginsRegistryDirectory())
                .pluginDataDirectory(access.pluginsDirectory().resolve(name))
                .unaryInterceptor(injector)
                .streamInterceptor(injector)
                .nodeV1(nodeV1)
                .nodeV1beta1(nodeV1beta1)
                .nodeV1alpha4(nodeV1alpha4)
                .healthV1alpha1(healthV1alpha1)
                .healthV1(healthV1);
        if (reconcilePoolWithName != null) {
            plugin.reconcilePoolWithName(reconcilePoolWithName);
        }
        if (enableDeviceMetadata) {
            plugin.enableDeviceMetadata(true)
                    .metadataVersions(deviceMetadataVersions.toArray(MetadataVersion[]::new))
                    .cdiFiles(access.cdiFiles());
        }
        if (rollingUpdate) {
            plugin.rollingUpdate(instanceUid).flockDirectory(onNodes.tempDirectory());
        }
        if (!withKubelet) {
            plugin.registrarListener(socket -> new NullListener()).pluginListener(socket -> new NullListener());
        } else {
            access.listenerFactory().ifPresent(factory -> plugin.registrarListener(factory).pluginListener(factory));
        }
    }

    /** Stops the driver on every node (upstream's {@code TearDown}); calling it again does nothing. */
    public void tearDown() {
        List<Step> steps;
        synchronized (cleanup) {
            steps = List.copyOf(cleanup);
            cleanup.clear();
        }
        for (Step step : steps) {
            try {
                step.run();
            } catch (Exception e) {
                throw new IllegalStateException("stopping driver " + name + instanceSuffix + " failed", e);
            }
        }
    }

    /** Waits until the driver's ResourceSlices are gone, as the kubelet wipes them after the driver stopped. */
    public void isGone() {
        framework.by("Waiting for ResourceSlices of driver " + name + " to be removed...");
        Waits.until("ResourceSlices of driver " + name + " removed", framework.timeouts().resourceSlicesGone()).until(() -> getSlices().call().isEmpty());
    }
}
