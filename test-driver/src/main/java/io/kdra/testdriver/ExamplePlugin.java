package io.kdra.testdriver;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.plugin.ClaimRef;
import io.kdra.plugin.DeviceHealth;
import io.kdra.plugin.DraPlugin;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.plugin.PrepareResult;
import io.kdra.plugin.PreparedDevice;
import io.kdra.plugin.RegistrationStatus;
import io.kdra.plugin.UnprepareResult;
import io.kdra.plugin.cdi.CdiDevice;
import io.kdra.plugin.cdi.CdiSpec;
import io.kdra.plugin.cdi.ContainerEdits;
import io.kdra.plugin.cdi.FileOperations;
import io.kdra.plugin.cdi.LocalFileOperations;
import io.kdra.plugin.resourceslice.DriverResources;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRA test driver: the Java counterpart of the upstream e2e test driver's {@code ExamplePlugin}. For every
 * allocation result of its own driver it writes a CDI spec {@code <cdi dir>/<driver>-<claim UID>-<request>.json}
 * whose only device {@code claim-<claim UID>-<request>} sets environment variables: {@code admin_<key>} from class
 * configs, {@code user_<key>} from claim configs (the last config wins), and {@code claim_<claim>_<request>=true}.
 * Subrequests use their base request. Prepare and unprepare are idempotent per claim name and UID.
 *
 * <p>Tests steer it with hooks: blocking and failing prepare or unprepare, failing registration, the history of all
 * gRPC calls on both sockets, device health reports, and claim status updates with the driver's client.
 *
 * <pre>{@code
 * ExamplePlugin driver = ExamplePlugin.builder("test-driver.cdi.k8s.io", Path.of("/var/run/cdi"))
 *         .nodeName("node-1")
 *         .kubernetesClient(client)
 *         .pluginOptions(plugin -> plugin.registrarDirectory(registry).pluginDataDirectory(dataDir))
 *         .start();
 * Runnable unblock = driver.blockNodePrepareResources();
 * ...
 * unblock.run();
 * await().until(driver::grpcCalls, CallMatcher.nodePrepareResourcesSucceeded());
 * driver.stop();
 * }</pre>
 */
public final class ExamplePlugin implements DraPlugin, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ExamplePlugin.class);
    /** The CDI spec version of the written files; container runtimes accept it. */
    public static final String CDI_VERSION = "0.3.0";
    /** The CDI class; the kind is {@code <driver>/test}. */
    public static final String CDI_CLASS = "test";
    /** How often the device health report is sent again on open streams, as upstream. */
    public static final Duration DEFAULT_HEALTH_RESEND_PERIOD = Duration.ofSeconds(2);
    /** The message of the overall NodePrepareResources error in failure mode. */
    public static final String PREPARE_FAILURE = "simulated PrepareResources failure";
    /** The message of the overall NodeUnprepareResources error in failure mode. */
    public static final String UNPREPARE_FAILURE = "simulated UnprepareResources failure";
    /** The device metadata attribute that names the driver. */
    public static final String DRIVER_NAME_ATTRIBUTE = "driverName";
    /** The device metadata attribute that names the device's pool. */
    public static final String POOL_ATTRIBUTE = "pool";
    /** The device metadata attribute that names the device. */
    public static final String DEVICE_ATTRIBUTE = "device";
    private static final String CONFIG_FROM_CLASS = "FromClass";
    private static final Pattern NOT_ALPHANUMERIC = Pattern.compile("[^a-zA-Z0-9]");

    /** Sort order of device health reports: by pool, then device, as upstream. */
    private record DeviceKey(String pool, String device) {
        static final Comparator<DeviceKey> ORDER =
                Comparator.comparing(DeviceKey::pool).thenComparing(DeviceKey::device);
    }

    /** A claim that cannot be prepared or unprepared; the message goes to the kubelet. */
    private static final class ClaimFailure extends Exception {
        private static final long serialVersionUID = 1L;

        ClaimFailure(String message) {
            super(message);
        }
    }

    private final String driverName;
    private final FileOperations cdiFiles;
    private final KubernetesClient client;
    private final Duration healthResendPeriod;
    private final CallRecorder calls = new CallRecorder();
    private final Map<ClaimId, List<PreparedDevice>> prepared = new HashMap<>();
    private final Map<DeviceKey, DeviceHealthUpdate> deviceHealth = new TreeMap<>(DeviceKey.ORDER);
    // Each gate lets one claim through at a time; a test that holds it stalls the calls.
    private final Semaphore prepareGate = new Semaphore(1);
    private final Semaphore unprepareGate = new Semaphore(1);
    private volatile String prepareFailure;
    private volatile String unprepareFailure;
    private KubeletPlugin plugin;
    private ScheduledExecutorService healthResender;

    private ExamplePlugin(Builder settings) {
        this.driverName = settings.driverName;
        this.cdiFiles = settings.cdiFiles;
        this.client = settings.client;
        this.healthResendPeriod = settings.healthResendPeriod;
    }

    /**
     * Starts configuring a test driver that writes CDI specs through the given file operations.
     *
     * @param driverName the DRA driver name, also the CDI vendor
     */
    public static Builder builder(String driverName, FileOperations cdiFiles) {
        return new Builder(driverName, cdiFiles);
    }

    /** Starts configuring a test driver that writes CDI specs into a local directory. */
    public static Builder builder(String driverName, Path cdiDirectory) {
        return new Builder(driverName, new LocalFileOperations(cdiDirectory));
    }

    /** The driver name. */
    public String driverName() {
        return driverName;
    }

    /** The kubelet plugin that serves this driver: socket paths, supported versions, registration status. */
    public KubeletPlugin kubeletPlugin() {
        return plugin;
    }

    /**
     * The name of the CDI spec file for one request of a claim, {@code <driver>-<claim UID>-<base request>.json}.
     *
     * @param requestName a request or subrequest ({@code req/sub}) name
     */
    public String cdiFileName(String claimUid, String requestName) {
        return driverName + "-" + claimUid + "-" + baseRequest(requestName) + ".json";
    }

    @Override
    public Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) throws InterruptedException {
        String failure = prepareFailure;
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
        Map<String, PrepareResult> results = new LinkedHashMap<>();
        for (ResourceClaim claim : claims) {
            PrepareResult result;
            try {
                result = PrepareResult.prepared(prepare(claim));
            } catch (ClaimFailure e) {
                result = PrepareResult.failed(e.getMessage());
            }
            results.put(claim.getMetadata().getUid(), result);
        }
        return results;
    }

    @Override
    public Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) throws InterruptedException {
        String failure = unprepareFailure;
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
        Map<String, UnprepareResult> results = new LinkedHashMap<>();
        for (ClaimRef claim : claims) {
            UnprepareResult result;
            try {
                unprepare(claim);
                result = UnprepareResult.unprepared();
            } catch (ClaimFailure e) {
                result = UnprepareResult.failed(e.getMessage());
            }
            results.put(claim.uid(), result);
        }
        return results;
    }

    private List<PreparedDevice> prepare(ResourceClaim claim) throws ClaimFailure, InterruptedException {
        prepareGate.acquire();
        try {
            String name = claim.getMetadata().getName();
            String uid = claim.getMetadata().getUid();
            ClaimId id = new ClaimId(name, uid);
            synchronized (prepared) {
                List<PreparedDevice> earlier = prepared.get(id);
                if (earlier != null) {
                    return earlier;
                }
            }
            DeviceAllocationResult allocation = claim.getStatus().getAllocation().getDevices();
            List<DeviceRequestAllocationResult> results = allocation == null ? List.of() : allocation.getResults();
            List<DeviceAllocationConfiguration> configs = allocation == null ? List.of() : allocation.getConfig();
            List<PreparedDevice> devices = new ArrayList<>();
            for (DeviceRequestAllocationResult result : results) {
                if (driverName.equals(result.getDriver())) {
                    devices.add(prepareResult(name, uid, result, configs));
                }
            }
            devices = List.copyOf(devices);
            synchronized (prepared) {
                prepared.put(id, devices);
            }
            LOG.debug("CDI file(s) created for claim {}/{}: {}", claim.getMetadata().getNamespace(), name, devices);
            return devices;
        } finally {
            prepareGate.release();
        }
    }

    private PreparedDevice prepareResult(String claimName, String claimUid, DeviceRequestAllocationResult result,
            List<DeviceAllocationConfiguration> allConfigs) throws ClaimFailure {
        String baseRequest = baseRequest(result.getRequest());
        Map<String, String> env = new HashMap<>();
        List<DeviceAllocationConfiguration> configs = configsFor(allConfigs, result.getRequest());
        for (int i = 0; i < configs.size(); i++) {
            DeviceAllocationConfiguration config = configs.get(i);
            if (!driverName.equals(config.getOpaque().getDriver())) {
                continue;
            }
            String prefix = CONFIG_FROM_CLASS.equals(config.getSource()) ? "admin" : "user";
            try {
                OpaqueParameters.addEnvironment(config.getOpaque().getParameters(), prefix, env);
            } catch (IllegalArgumentException e) {
                throw new ClaimFailure("parameters in config #" + i + ": " + e.getMessage());
            }
        }
        env.put(NOT_ALPHANUMERIC.matcher("claim_" + claimName + "_" + baseRequest).replaceAll("_"), "true");
        List<String> sortedEnv = env.entrySet().stream().map(entry -> entry.getKey() + "=" + entry.getValue())
                .sorted().toList();
        String cdiDeviceName = "claim-" + claimUid + "-" + baseRequest;
        try {
            CdiSpec spec = CdiSpec.of(CDI_VERSION, driverName + "/" + CDI_CLASS,
                    List.of(new CdiDevice(cdiDeviceName, ContainerEdits.ofEnv(sortedEnv))));
            cdiFiles.write(cdiFileName(claimUid, baseRequest), spec.toJson());
            return new PreparedDevice(List.of(result.getRequest()), result.getPool(), result.getDevice(),
                    List.of(spec.deviceId(cdiDeviceName).toString()), result.getShareID())
                    .withMetadata(deviceMetadata(result.getPool(), result.getDevice()));
        } catch (IOException e) {
            throw new ClaimFailure("failed to write CDI file: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new ClaimFailure("request " + result.getRequest() + ": " + e.getMessage());
        }
    }

    /**
     * What the device metadata files say about a device, when the kubelet plugin writes them: string attributes
     * {@value #DRIVER_NAME_ATTRIBUTE}, {@value #POOL_ATTRIBUTE} and {@value #DEVICE_ATTRIBUTE}, as upstream's test
     * driver, so that a spec can tell which driver's file it reads and for which device.
     */
    private PreparedDevice.Metadata deviceMetadata(String pool, String device) {
        return new PreparedDevice.Metadata(Map.of(
                DRIVER_NAME_ATTRIBUTE, new DeviceAttributeBuilder().withString(driverName).build(),
                POOL_ATTRIBUTE, new DeviceAttributeBuilder().withString(pool).build(),
                DEVICE_ATTRIBUTE, new DeviceAttributeBuilder().withString(device).build()), null);
    }

    /** The opaque configs that apply to a result, in allocation order: those for all requests or for its request. */
    private static List<DeviceAllocationConfiguration> configsFor(List<DeviceAllocationConfiguration> configs,
            String request) {
        String base = baseRequest(request);
        return configs.stream()
                .filter(config -> config.getOpaque() != null)
                .filter(config -> config.getRequests() == null || config.getRequests().isEmpty()
                        || config.getRequests().contains(request) || config.getRequests().contains(base))
                .toList();
    }

    private void unprepare(ClaimRef claim) throws ClaimFailure, InterruptedException {
        unprepareGate.acquire();
        try {
            ClaimId id = new ClaimId(claim.name(), claim.uid());
            List<PreparedDevice> devices;
            synchronized (prepared) {
                devices = prepared.get(id);
            }
            if (devices == null) {
                return;
            }
            for (PreparedDevice device : devices) {
                for (String request : device.requestNames()) {
                    try {
                        cdiFiles.remove(cdiFileName(claim.uid(), request));
                    } catch (IOException e) {
                        throw new ClaimFailure("error removing CDI file: " + e.getMessage());
                    }
                }
            }
            synchronized (prepared) {
                prepared.remove(id);
            }
            LOG.debug("CDI file(s) removed for claim {}", claim);
        } finally {
            unprepareGate.release();
        }
    }

    private static String baseRequest(String request) {
        int slash = request.indexOf('/');
        return slash < 0 ? request : request.substring(0, slash);
    }

    /** The claims prepared and not unprepared since, sorted by name and UID. */
    public List<ClaimId> preparedClaims() {
        synchronized (prepared) {
            return prepared.keySet().stream()
                    .sorted(Comparator.comparing(ClaimId::name).thenComparing(ClaimId::uid))
                    .toList();
        }
    }

    /** Every gRPC call on both sockets since start or the last {@link #resetGrpcCalls()}, oldest first. */
    public List<GrpcCall> grpcCalls() {
        return calls.calls();
    }

    /** Forgets the recorded calls; calls still running are not recorded when they end. */
    public void resetGrpcCalls() {
        calls.reset();
    }

    /** How many recorded calls have a method ending with the suffix, for example {@code /NodePrepareResources}. */
    public int countCalls(String methodSuffix) {
        return (int) grpcCalls().stream().filter(call -> call.isMethod(methodSuffix)).count();
    }

    /**
     * Stalls NodePrepareResources until the returned action runs: claims wait before they are prepared. If another
     * block is in place, this waits until it is lifted.
     *
     * @return the action that unblocks; running it again does nothing
     */
    public Runnable blockNodePrepareResources() {
        return block(prepareGate);
    }

    /** Like {@link #blockNodePrepareResources()} for NodeUnprepareResources. */
    public Runnable blockNodeUnprepareResources() {
        return block(unprepareGate);
    }

    private static Runnable block(Semaphore gate) {
        gate.acquireUninterruptibly();
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                gate.release();
            }
        };
    }

    /**
     * Makes NodePrepareResources fail as a whole with {@value #PREPARE_FAILURE}, so that the kubelet retries.
     *
     * @return the action that ends the failure mode
     */
    public Runnable setNodePrepareResourcesFailureMode() {
        prepareFailure = PREPARE_FAILURE;
        return () -> prepareFailure = null;
    }

    /** Like {@link #setNodePrepareResourcesFailureMode()} for NodeUnprepareResources ({@value #UNPREPARE_FAILURE}). */
    public Runnable setNodeUnprepareResourcesFailureMode() {
        unprepareFailure = UNPREPARE_FAILURE;
        return () -> unprepareFailure = null;
    }

    /** Makes GetInfo fail with this message until called with {@code null}. */
    public void setGetInfoError(String message) {
        plugin.setGetInfoError(message);
    }

    /** Makes NotifyRegistrationStatus fail with this message until called with {@code null}. */
    public void setNotifyRegistrationStatusError(String message) {
        plugin.setNotifyRegistrationStatusError(message);
    }

    /** Whether the kubelet last reported a successful registration. */
    public boolean isRegistered() {
        return plugin.registrationStatus().map(RegistrationStatus::registered).orElse(false);
    }

    /**
     * Records a device's health and sends the full report, sorted by pool and device, on every open health stream.
     * The report is also sent again periodically and to streams that open later.
     *
     * @throws IllegalStateException if no DRAResourceHealth service is served
     */
    public void updateDeviceHealth(DeviceHealthUpdate update) {
        if (!servesHealth()) {
            throw new IllegalStateException("driver " + driverName
                    + " serves no DRAResourceHealth service; enable one through pluginOptions");
        }
        synchronized (deviceHealth) {
            deviceHealth.put(new DeviceKey(update.poolName(), update.deviceName()), update);
            sendHealthReport();
        }
    }

    private boolean servesHealth() {
        return plugin.servesHealth();
    }

    private void sendHealthReport() {
        synchronized (deviceHealth) {
            Instant now = Instant.now();
            plugin.reportHealth(deviceHealth.values().stream()
                    .map(device -> new DeviceHealth(device.poolName(), device.deviceName(), device.health(), now,
                            Duration.ZERO, device.message()))
                    .toList());
        }
    }

    private void resendHealthReport() {
        try {
            sendHealthReport();
        } catch (RuntimeException e) {
            LOG.debug("driver {}: resending the health report failed", driverName, e);
        }
    }

    /**
     * Writes a claim's status with the driver's own client, for example the device status a driver reports.
     *
     * @return the claim as stored
     * @throws IllegalStateException without Kubernetes client
     */
    public ResourceClaim updateStatus(ResourceClaim claim) {
        if (client == null) {
            throw new IllegalStateException("driver " + driverName + " has no Kubernetes client to update claim status");
        }
        return client.dynamicResourceAllocation().v1().resourceClaims()
                .inNamespace(claim.getMetadata().getNamespace()).resource(claim).updateStatus();
    }

    /** Stops the health reports and the kubelet plugin, which removes both sockets. Calling it again does nothing. */
    public void stop() {
        if (healthResender != null) {
            healthResender.shutdownNow();
        }
        plugin.stop();
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    private void start(Builder settings) throws IOException {
        KubeletPlugin.Builder options = KubeletPlugin.builder(driverName, this)
                .nodeName(settings.nodeName)
                .kubernetesClient(client);
        settings.pluginOptions.accept(options);
        // Added last so that the history shows what reached the driver, after the caller's interceptors.
        options.unaryInterceptor(calls).streamInterceptor(calls);
        plugin = options.start();
        try {
            if (settings.driverResources != null) {
                plugin.publishResources(settings.driverResources);
            }
        } catch (RuntimeException e) {
            plugin.stop();
            throw new IllegalStateException("start kubelet plugin: publish resources: " + e.getMessage(), e);
        }
        if (servesHealth()) {
            sendHealthReport();
            healthResender = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "kdra-testdriver-health-" + driverName);
                thread.setDaemon(true);
                return thread;
            });
            long period = healthResendPeriod.toMillis();
            healthResender.scheduleAtFixedRate(this::resendHealthReport, period, period, TimeUnit.MILLISECONDS);
        }
    }

    /** Options of an {@link ExamplePlugin}. */
    public static final class Builder {

        private final String driverName;
        private final FileOperations cdiFiles;
        private String nodeName;
        private KubernetesClient client;
        private DriverResources driverResources;
        private Consumer<KubeletPlugin.Builder> pluginOptions = options -> { };
        private Duration healthResendPeriod = DEFAULT_HEALTH_RESEND_PERIOD;

        private Builder(String driverName, FileOperations cdiFiles) {
            this.driverName = driverName;
            this.cdiFiles = Objects.requireNonNull(cdiFiles, "cdiFiles");
        }

        /** The node the driver runs on; needed to publish resources. */
        public Builder nodeName(String nodeName) {
            this.nodeName = nodeName;
            return this;
        }

        /** API access: claims for NodePrepareResources, ResourceSlices, claim status updates. */
        public Builder kubernetesClient(KubernetesClient client) {
            this.client = client;
            return this;
        }

        /** Node-local resources published as ResourceSlices at start. */
        public Builder driverResources(DriverResources resources) {
            this.driverResources = resources;
            return this;
        }

        /**
         * Further options of the kubelet plugin: directories, served API versions (including health), rolling update,
         * serialization, interceptors, listeners. Driver name, node name and client are already set.
         */
        public Builder pluginOptions(Consumer<KubeletPlugin.Builder> options) {
            this.pluginOptions = Objects.requireNonNull(options, "options");
            return this;
        }

        /** How often the device health report is sent again; default {@link #DEFAULT_HEALTH_RESEND_PERIOD}. */
        public Builder healthResendPeriod(Duration period) {
            if (period.isNegative() || period.isZero()) {
                throw new IllegalArgumentException("health resend period must be positive, got " + period);
            }
            this.healthResendPeriod = period;
            return this;
        }

        /**
         * Starts the kubelet plugin and publishes the driver resources, if any.
         *
         * @throws IllegalArgumentException for invalid plugin options
         * @throws IllegalStateException if resources were given but cannot be published
         * @throws IOException if a socket cannot be created
         */
        public ExamplePlugin start() throws IOException {
            ExamplePlugin example = new ExamplePlugin(this);
            example.start(this);
            return example;
        }
    }
}
