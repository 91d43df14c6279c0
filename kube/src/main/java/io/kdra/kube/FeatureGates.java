package io.kdra.kube;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kubernetes feature gates that change DRA behaviour, at one emulated Kubernetes version: each gate's default and
 * lock state follow upstream's versioned feature specs ({@code pkg/features/kube_features.go}), and
 * {@link #parse(KubernetesVersion, String)} reads the {@code --feature-gates} flag as kube components do
 * ({@code k8s.io/component-base/featuregate}), with the same error messages.
 *
 * <p>Immutable. Every component of a cluster takes the same value, so an e2e spec that needs a gate on or off gets
 * it everywhere at once.
 */
public final class FeatureGates {

    private static final Logger LOG = LoggerFactory.getLogger(FeatureGates.class);

    public static final String DYNAMIC_RESOURCE_ALLOCATION = "DynamicResourceAllocation";
    public static final String DRA_ADMIN_ACCESS = "DRAAdminAccess";
    public static final String DRA_CONSUMABLE_CAPACITY = "DRAConsumableCapacity";
    public static final String DRA_DERIVED_ATTRIBUTES = "DRADerivedAttributes";
    public static final String DRA_DEVICE_BINDING_CONDITIONS = "DRADeviceBindingConditions";
    public static final String DRA_DEVICE_COMPATIBILITY_GROUPS = "DRADeviceCompatibilityGroups";
    public static final String DRA_DEVICE_TAINT_RULES = "DRADeviceTaintRules";
    public static final String DRA_DEVICE_TAINTS = "DRADeviceTaints";
    public static final String DRA_EXTENDED_RESOURCE = "DRAExtendedResource";
    public static final String DRA_FRACTIONAL_CAPACITY_RANGE = "DRAFractionalCapacityRange";
    public static final String DRA_LIST_TYPE_ATTRIBUTES = "DRAListTypeAttributes";
    public static final String DRA_NODE_ALLOCATABLE_RESOURCES = "DRANodeAllocatableResources";
    public static final String DRA_OPTIONAL_NODE_OPERATIONS = "DRAOptionalNodeOperations";
    public static final String DRA_PARTITIONABLE_DEVICES = "DRAPartitionableDevices";
    public static final String DRA_PARTITIONABLE_DEVICES_TYPE = "DRAPartitionableDevicesType";
    public static final String DRA_PRIORITIZED_LIST = "DRAPrioritizedList";
    public static final String DRA_RESOURCE_CLAIM_DEVICE_STATUS = "DRAResourceClaimDeviceStatus";
    public static final String DRA_RESOURCE_CLAIM_GRANULAR_STATUS_AUTHORIZATION =
            "DRAResourceClaimGranularStatusAuthorization";
    public static final String DRA_RESOURCE_POOL_STATUS = "DRAResourcePoolStatus";
    public static final String DRA_SCHEDULER_FILTER_TIMEOUT = "DRASchedulerFilterTimeout";
    public static final String DRA_WORKLOAD_RESOURCE_CLAIMS = "DRAWorkloadResourceClaims";
    public static final String GENERIC_WORKLOAD = "GenericWorkload";
    public static final String IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING =
            "InPlacePodLevelResourcesVerticalScaling";
    public static final String POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS = "PodLevelResourcesFixKubeletQOSClass";
    public static final String RESOURCE_HEALTH_STATUS = "ResourceHealthStatus";
    public static final String RESOURCE_HEALTH_STATUS_MESSAGE = "ResourceHealthStatusMessage";

    /** The oldest emulated version kdra knows the gates of: the first release of structured parameters. */
    public static final KubernetesVersion OLDEST_VERSION = new KubernetesVersion(1, 31);

    /** The newest emulated version kdra knows the gates of. */
    public static final KubernetesVersion NEWEST_VERSION = new KubernetesVersion(1, 37);

    private enum Stage {
        ALPHA,
        BETA,
        GA
    }

    /** One entry of a gate's timeline: from {@code since} on, the gate has this default, stage and lock. */
    private record Spec(KubernetesVersion since, boolean enabledByDefault, Stage stage, boolean locked) {}

    private record Gate(String name, List<Spec> timeline, List<String> dependsOn) {

        /** The spec in force at {@code version}, or null while the gate does not exist yet (upstream's PreAlpha). */
        Spec at(KubernetesVersion version) {
            Spec current = null;
            for (Spec spec : timeline) {
                if (spec.since().compareTo(version) <= 0) {
                    current = spec;
                }
            }
            return current;
        }
    }

    private static final Map<String, Gate> GATES = gates();

    private final KubernetesVersion version;
    /** The gates set explicitly, by name; the rest are at their defaults. */
    private final Map<String, Boolean> overrides;
    /** Every known gate's effective value. */
    private final Map<String, Boolean> effective;

    private FeatureGates(KubernetesVersion version, Map<String, Boolean> overrides) {
        this.version = version;
        this.overrides = Collections.unmodifiableMap(new TreeMap<>(overrides));
        Map<String, Boolean> values = new TreeMap<>();
        for (Gate gate : GATES.values()) {
            values.put(gate.name(), overrides.getOrDefault(gate.name(), defaultAt(gate, version)));
        }
        this.effective = Collections.unmodifiableMap(values);
    }

    /**
     * The gates as a component of Kubernetes {@code emulated} has them by default.
     *
     * @throws IllegalArgumentException when kdra does not know the gates of that version
     */
    public static FeatureGates defaults(KubernetesVersion emulated) {
        return new FeatureGates(checkedVersion(emulated), Map.of());
    }

    /**
     * Applies a {@code --feature-gates} value, {@code A=true,B=false}, over the defaults of {@code emulated}. Blank
     * entries and whitespace around names and values are ignored; values are Go booleans ({@code 1}, {@code t},
     * {@code TRUE}, {@code false}, ...); an empty spec gives the defaults.
     *
     * @throws IllegalArgumentException with the message kube's feature gate gives: an unknown gate, a value that is
     *     no boolean, a gate locked to its default, a gate that does not exist yet at {@code emulated}, or an enabled
     *     gate whose dependencies are disabled
     */
    public static FeatureGates parse(KubernetesVersion emulated, String spec) {
        Objects.requireNonNull(spec, "feature gates spec");
        return defaults(emulated).withAll(parseSpec(spec));
    }

    /**
     * Returns these gates with one gate switched, validated as {@link #parse(KubernetesVersion, String)} validates.
     *
     * @throws IllegalArgumentException as {@link #parse(KubernetesVersion, String)} does
     */
    public FeatureGates with(String gate, boolean enabled) {
        Map<String, Boolean> change = new LinkedHashMap<>();
        change.put(gate, enabled);
        return withAll(change);
    }

    /**
     * Whether {@code gate} is on.
     *
     * @throws IllegalArgumentException when kdra does not know the gate
     */
    public boolean enabled(String gate) {
        Boolean value = effective.get(gate);
        if (value == null) {
            throw new IllegalArgumentException("unrecognized feature gate: " + gate);
        }
        return value;
    }

    /** The emulated Kubernetes version whose defaults these gates start from. */
    public KubernetesVersion version() {
        return version;
    }

    /** Every known gate with its effective value, by name; gates that do not exist yet at this version are off. */
    public Map<String, Boolean> asMap() {
        return effective;
    }

    /** The first version that has {@code gate} (upstream's first non-PreAlpha spec); empty for an unknown gate. */
    public static Optional<KubernetesVersion> introducedIn(String gate) {
        Gate known = GATES.get(gate);
        return known == null ? Optional.empty() : Optional.of(known.timeline().get(0).since());
    }

    /**
     * The gates that depend on {@code gate}, directly or through others, sorted: what must be off when it is off.
     * Empty for an unknown gate.
     */
    public static Set<String> dependents(String gate) {
        Set<String> dependents = new TreeSet<>();
        boolean grown = true;
        while (grown) {
            grown = false;
            for (Gate candidate : GATES.values()) {
                if (!dependents.contains(candidate.name()) && candidate.dependsOn().stream()
                        .anyMatch(dependency -> dependency.equals(gate) || dependents.contains(dependency))) {
                    grown = dependents.add(candidate.name()) || grown;
                }
            }
        }
        return dependents;
    }

    /** The names of every gate kdra knows, at any version, sorted. */
    public static List<String> knownGates() {
        return List.copyOf(GATES.keySet());
    }

    /**
     * The {@code --feature-gates} spec of the gates whose value differs from the default, sorted by name, e.g.
     * {@code DRADeviceTaints=true,DRAPrioritizedList=false}; empty when every gate is at its default.
     * {@code parse(version(), toString())} gives equal gates back.
     */
    @Override
    public String toString() {
        List<String> pairs = new ArrayList<>();
        effective.forEach((name, value) -> {
            if (value != defaultAt(GATES.get(name), version)) {
                pairs.add(name + "=" + value);
            }
        });
        return String.join(",", pairs);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FeatureGates gates
                && version.equals(gates.version)
                && effective.equals(gates.effective);
    }

    @Override
    public int hashCode() {
        return Objects.hash(version, effective);
    }

    private FeatureGates withAll(Map<String, Boolean> change) {
        List<String> errors = new ArrayList<>();
        for (Map.Entry<String, Boolean> entry : change.entrySet()) {
            String name = entry.getKey();
            boolean value = entry.getValue();
            Gate gate = GATES.get(name);
            if (gate == null) {
                // as upstream, an unknown gate ends the validation at once
                throw new IllegalArgumentException("unrecognized feature gate: " + name);
            }
            Spec spec = gate.at(version);
            if (spec == null) {
                errors.add("cannot set feature gate " + name + " to " + value + ", feature is PreAlpha at emulated version "
                        + version + ", min compatibility version " + version.previousMinor());
                continue;
            }
            if (spec.locked() && spec.enabledByDefault() != value) {
                errors.add("cannot set feature gate " + name + " to " + value + ", feature is locked to "
                        + spec.enabledByDefault());
                continue;
            }
            if (spec.stage() == Stage.GA) {
                LOG.warn("Setting GA feature gate {}={}. It will be removed in a future release.", name, value);
            }
        }
        throwIfAny(errors);
        Map<String, Boolean> merged = new TreeMap<>(overrides);
        merged.putAll(change);
        FeatureGates result = new FeatureGates(version, merged);
        result.checkDependencies();
        return result;
    }

    private void checkDependencies() {
        List<String> errors = new ArrayList<>();
        for (Gate gate : GATES.values()) {
            if (!effective.get(gate.name())) {
                continue;
            }
            List<String> disabled = gate.dependsOn().stream().filter(dep -> !effective.get(dep)).toList();
            if (!disabled.isEmpty()) {
                errors.add(gate.name() + " is enabled, but depends on features that are disabled: ["
                        + String.join(" ", disabled) + "]");
            }
        }
        throwIfAny(errors);
    }

    /** Reports errors as Kubernetes' error aggregate prints them: one alone, several as {@code [a, b]}. */
    private static void throwIfAny(List<String> errors) {
        if (errors.size() == 1) {
            throw new IllegalArgumentException(errors.get(0));
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException("[" + String.join(", ", errors) + "]");
        }
    }

    private static Map<String, Boolean> parseSpec(String spec) {
        Map<String, Boolean> values = new LinkedHashMap<>();
        for (String entry : spec.split(",", -1)) {
            if (entry.isEmpty()) {
                continue;
            }
            int equals = entry.indexOf('=');
            String name = (equals < 0 ? entry : entry.substring(0, equals)).strip();
            if (equals < 0) {
                throw new IllegalArgumentException("missing bool value for " + name);
            }
            String value = entry.substring(equals + 1).strip();
            values.put(name, parseGoBool(name, value));
        }
        return values;
    }

    /** Go's strconv.ParseBool. */
    private static boolean parseGoBool(String name, String value) {
        return switch (value) {
            case "1", "t", "T", "TRUE", "true", "True" -> true;
            case "0", "f", "F", "FALSE", "false", "False" -> false;
            default -> throw new IllegalArgumentException("invalid value of " + name + "=" + value
                    + ", err: strconv.ParseBool: parsing " + GoQuote.quote(value) + ": invalid syntax");
        };
    }

    private static boolean defaultAt(Gate gate, KubernetesVersion version) {
        Spec spec = gate.at(version);
        return spec != null && spec.enabledByDefault();
    }

    private static KubernetesVersion checkedVersion(KubernetesVersion emulated) {
        Objects.requireNonNull(emulated, "emulated Kubernetes version");
        if (emulated.compareTo(OLDEST_VERSION) < 0 || emulated.compareTo(NEWEST_VERSION) > 0) {
            throw new IllegalArgumentException("emulated Kubernetes version " + emulated
                    + " is not supported: kdra knows the feature gates of " + OLDEST_VERSION + " to "
                    + NEWEST_VERSION);
        }
        return emulated;
    }

    private static Spec alpha(int minor) {
        return new Spec(new KubernetesVersion(1, minor), false, Stage.ALPHA, false);
    }

    private static Spec beta(int minor, boolean enabledByDefault) {
        return new Spec(new KubernetesVersion(1, minor), enabledByDefault, Stage.BETA, false);
    }

    private static Spec ga(int minor) {
        return new Spec(new KubernetesVersion(1, minor), true, Stage.GA, false);
    }

    private static Spec gaLocked(int minor) {
        return new Spec(new KubernetesVersion(1, minor), true, Stage.GA, true);
    }

    /*
     * The timelines follow upstream kube_features.go (a 1.35-era and a 1.37-era version) and the KEPs. Where neither
     * gives a fact, the entry says [inferred]: the first version of a gate upstream lists only from the release where
     * kdra's sources first see it, and dependencies that upstream's dependency map may not declare.
     */
    private static Map<String, Gate> gates() {
        String dra = DYNAMIC_RESOURCE_ALLOCATION;
        List<Gate> gates = List.of(
                new Gate(dra, List.of(alpha(26), beta(32, false), ga(34), gaLocked(35)), List.of()),
                new Gate(DRA_ADMIN_ACCESS, List.of(alpha(32), beta(34, true), gaLocked(36)), List.of(dra)),
                new Gate(DRA_CONSUMABLE_CAPACITY, List.of(alpha(34), beta(36, true)), List.of(dra)),
                // [inferred] dependency
                new Gate(DRA_DERIVED_ATTRIBUTES, List.of(alpha(37)), List.of(dra)),
                new Gate(DRA_DEVICE_BINDING_CONDITIONS, List.of(alpha(34), beta(36, true)),
                        List.of(dra, DRA_RESOURCE_CLAIM_DEVICE_STATUS)),
                // the gate's comment: DRAPartitionableDevices also needs to be enabled
                new Gate(DRA_DEVICE_COMPATIBILITY_GROUPS, List.of(alpha(37)), List.of(DRA_PARTITIONABLE_DEVICES)),
                // beta off in 1.36: it needs an off-by-default beta API
                new Gate(DRA_DEVICE_TAINT_RULES, List.of(alpha(35), beta(36, false), ga(37)),
                        List.of(DRA_DEVICE_TAINTS)),
                new Gate(DRA_DEVICE_TAINTS, List.of(alpha(33), beta(36, true), ga(37)), List.of(dra)),
                new Gate(DRA_EXTENDED_RESOURCE, List.of(alpha(34), beta(36, true), gaLocked(37)), List.of(dra)),
                // upstream turns it on only with a minimum compatibility version of 1.37; kdra's is always the
                // emulated version's predecessor, so it stays off by default. [inferred] dependency
                new Gate(DRA_FRACTIONAL_CAPACITY_RANGE, List.of(beta(37, false)), List.of(DRA_CONSUMABLE_CAPACITY)),
                // [inferred] dependency
                new Gate(DRA_LIST_TYPE_ATTRIBUTES, List.of(alpha(36)), List.of(dra)),
                // [inferred] dependency
                new Gate(DRA_NODE_ALLOCATABLE_RESOURCES, List.of(alpha(36)), List.of(dra)),
                // [inferred] dependency
                new Gate(DRA_OPTIONAL_NODE_OPERATIONS, List.of(alpha(37)), List.of(dra)),
                new Gate(DRA_PARTITIONABLE_DEVICES, List.of(alpha(33), beta(36, true)), List.of(dra)),
                // dependencies as the feature docs give them
                new Gate(DRA_PARTITIONABLE_DEVICES_TYPE, List.of(alpha(37)),
                        List.of(DRA_PARTITIONABLE_DEVICES, DRA_RESOURCE_POOL_STATUS)),
                new Gate(DRA_PRIORITIZED_LIST, List.of(alpha(33), beta(34, true), ga(36), gaLocked(37)),
                        List.of(dra)),
                new Gate(DRA_RESOURCE_CLAIM_DEVICE_STATUS, List.of(alpha(32), beta(33, true), gaLocked(37)),
                        List.of()),
                new Gate(DRA_RESOURCE_CLAIM_GRANULAR_STATUS_AUTHORIZATION, List.of(beta(36, true)),
                        List.of(dra, DRA_RESOURCE_CLAIM_DEVICE_STATUS)),
                // [inferred] alpha since 1.36, the first release kdra's sources show it in
                new Gate(DRA_RESOURCE_POOL_STATUS, List.of(alpha(36)), List.of(dra)),
                // [inferred] dependency
                new Gate(DRA_SCHEDULER_FILTER_TIMEOUT, List.of(beta(34, true)), List.of(dra)),
                new Gate(DRA_WORKLOAD_RESOURCE_CLAIMS, List.of(alpha(36), beta(37, false)),
                        List.of(dra, GENERIC_WORKLOAD)),
                new Gate(GENERIC_WORKLOAD, List.of(alpha(35), beta(37, false)), List.of()),
                // upstream's dependencies on PodLevelResources and InPlacePodVerticalScaling are not modelled: kdra
                // does not know those gates
                new Gate(IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING, List.of(alpha(35), beta(36, true)), List.of()),
                // kubernetes#137150 (beta, on from 1.37; kubernetes#140631 shows it on by default in the 1.37
                // cycle); its dependency on PodLevelResources is not modelled: kdra does not know that gate
                new Gate(POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS, List.of(beta(37, true)), List.of()),
                new Gate(RESOURCE_HEALTH_STATUS, List.of(alpha(31), beta(36, true)), List.of(dra)),
                // [inferred] beta since 1.36 with no alpha release kdra's sources know of, still beta in 1.37
                new Gate(RESOURCE_HEALTH_STATUS_MESSAGE, List.of(beta(36, true)), List.of(RESOURCE_HEALTH_STATUS)));
        Map<String, Gate> byName = new TreeMap<>();
        for (Gate gate : gates) {
            byName.put(gate.name(), gate);
        }
        return Collections.unmodifiableMap(byName);
    }
}
