package io.kdra.framework;

import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a spec needs from the cluster, read from its JUnit tags as upstream reads its labels: each
 * {@code FeatureGate:X} tag turns gate X on, {@code KubeletMinVersion:v} raises the kubelet version. Clusters of the
 * embedded backend are shared by all specs with equal requirements.
 *
 * @param nodes how many nodes the embedded cluster has (kind's DRA cluster has three workers)
 * @param kubernetesVersion the control plane's version
 * @param kubeletVersion the kubelets' version
 * @param featureGates gates to set, sorted by name
 * @param realSliceWipingDelay whether the kubelets wait the real 30 s before wiping a gone driver's slices (see
 *     {@link RealSliceWipingDelay}) instead of the fast timing's 2 s
 * @param upgradable whether the cluster belongs to a spec that switches its version (see {@link UpgradesCluster}),
 *     which no other spec may share
 * @param nodeSuite whether the cluster runs upstream's node suite apart from the other specs (see {@link NodeSuite})
 */
public record ClusterRequirements(int nodes, KubernetesVersion kubernetesVersion, KubernetesVersion kubeletVersion,
        Map<String, Boolean> featureGates, boolean realSliceWipingDelay, boolean upgradable, boolean nodeSuite) {

    /** System property: node count of embedded clusters (default 3). */
    public static final String NODES_PROPERTY = "kdra.e2e.nodes";
    /** System property: Kubernetes version of embedded clusters (default 1.34). */
    public static final String KUBERNETES_VERSION_PROPERTY = "kdra.e2e.kubernetesVersion";
    /** System property: extra feature gates of embedded clusters, {@code A=true,B=false}. */
    public static final String FEATURE_GATES_PROPERTY = "kdra.e2e.featureGates";
    private static final String FEATURE_GATE_TAG = "FeatureGate:";
    private static final String KUBELET_MIN_VERSION_TAG = "KubeletMinVersion:";

    public ClusterRequirements {
        Objects.requireNonNull(kubernetesVersion, "kubernetesVersion");
        Objects.requireNonNull(kubeletVersion, "kubeletVersion");
        featureGates = Collections.unmodifiableMap(new TreeMap<>(featureGates));
    }

    /** The requirements of a spec with these tags, on top of the defaults the system properties set. */
    public static ClusterRequirements forTags(Set<String> tags) {
        KubernetesVersion kubernetes = KubernetesVersion.parse(System.getProperty(KUBERNETES_VERSION_PROPERTY, "1.34"));
        KubernetesVersion kubelet = kubernetes;
        Map<String, Boolean> gates = new TreeMap<>();
        for (String entry : System.getProperty(FEATURE_GATES_PROPERTY, "").split(",")) {
            if (!entry.isBlank()) {
                String[] parts = entry.trim().split("=", 2);
                gates.put(parts[0], parts.length < 2 || Boolean.parseBoolean(parts[1]));
            }
        }
        for (String tag : tags) {
            if (tag.startsWith(FEATURE_GATE_TAG)) {
                gates.put(tag.substring(FEATURE_GATE_TAG.length()), true);
            } else if (tag.startsWith(KUBELET_MIN_VERSION_TAG)) {
                KubernetesVersion minimum = KubernetesVersion.parse(tag.substring(KUBELET_MIN_VERSION_TAG.length()));
                if (minimum.compareTo(kubelet) > 0) {
                    kubelet = minimum;
                }
            }
        }
        for (Map.Entry<String, Boolean> gate : gates.entrySet()) {
            // a gate that does not exist yet at the default version cannot be set: raise the version to its first
            Optional<KubernetesVersion> introduced = FeatureGates.introducedIn(gate.getKey());
            if (gate.getValue() && introduced.isPresent() && introduced.get().compareTo(kubernetes) > 0) {
                kubernetes = introduced.get();
            }
        }
        if (kubernetes.compareTo(kubelet) > 0) {
            kubelet = kubernetes;
        }
        if (kubelet.compareTo(kubernetes) > 0) {
            // a kubelet newer than the control plane is outside the version-skew policy; raise both
            kubernetes = kubelet;
        }
        return new ClusterRequirements(Integer.getInteger(NODES_PROPERTY, 3), kubernetes, kubelet, gates, false,
                false, false);
    }

    /** These requirements with the kubelets' real slice-wiping delay. */
    public ClusterRequirements withRealSliceWipingDelay() {
        return new ClusterRequirements(nodes, kubernetesVersion, kubeletVersion, featureGates, true, upgradable,
                nodeSuite);
    }

    /** These requirements for a cluster of upstream's node suite, apart from the other specs' cluster. */
    public ClusterRequirements forNodeSuite() {
        return new ClusterRequirements(nodes, kubernetesVersion, kubeletVersion, featureGates, realSliceWipingDelay,
                upgradable, true);
    }

    /**
     * A cluster of its own for a spec that upgrades it to these requirements' version and downgrades it again: control
     * plane and kubelets start one minor release before that version, as upstream's upgrade/downgrade spec starts a
     * kind cluster of the release before the one it tests.
     */
    public ClusterRequirements upgradableFromPreviousMinor() {
        return new ClusterRequirements(nodes, kubernetesVersion.previousMinor(), kubernetesVersion.previousMinor(),
                featureGates, realSliceWipingDelay, true, nodeSuite);
    }

    /**
     * These requirements with the given gates off (see {@link DisabledFeatureGates}), and the gates that depend on
     * them and exist at the control plane's version, which cannot be on without them.
     */
    public ClusterRequirements withFeatureGatesOff(Set<String> gates) {
        Map<String, Boolean> changed = new TreeMap<>(featureGates);
        gates.forEach(gate -> {
            changed.put(gate, false);
            FeatureGates.dependents(gate).stream()
                    .filter(dependent -> FeatureGates.introducedIn(dependent)
                            .filter(introduced -> introduced.compareTo(kubernetesVersion) <= 0).isPresent())
                    .forEach(dependent -> changed.put(dependent, false));
        });
        return new ClusterRequirements(nodes, kubernetesVersion, kubeletVersion, changed, realSliceWipingDelay,
                upgradable, nodeSuite);
    }

    /** The gates as kube's {@code --feature-gates} takes them. */
    public String featureGatesFlag() {
        StringBuilder flag = new StringBuilder();
        featureGates.forEach((gate, enabled) -> flag.append(flag.isEmpty() ? "" : ",").append(gate).append('=')
                .append(enabled));
        return flag.toString();
    }
}
