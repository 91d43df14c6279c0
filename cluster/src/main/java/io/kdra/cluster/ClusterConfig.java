package io.kdra.cluster;

import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * An embedded cluster's settings, as {@link EmbeddedCluster.Builder} collects them.
 *
 * @param nodes the nodes, each with a simulated kubelet
 * @param kubernetesVersion the version the API server reports; the feature gates default to its values
 * @param kubeletVersion the kubelets' version, which picks the DRA gRPC service they call
 * @param featureGates the gates of every component (API server, scheduler, controllers, kubelets)
 * @param timing the control plane's and kubelets' delays
 * @param runtime the kubelets' container runtime
 * @param cgroups whether the nodes' cgroups are the kernel's
 * @param baseDirectory where the node directories go, or null for a new temporary one removed on close
 * @param tls whether the API server serves https
 */
public record ClusterConfig(List<NodeSpec> nodes, KubernetesVersion kubernetesVersion,
        KubernetesVersion kubeletVersion, FeatureGates featureGates, Timing timing, RuntimeKind runtime,
        CgroupMode cgroups, Path baseDirectory, boolean tls) {

    public ClusterConfig {
        nodes = List.copyOf(nodes);
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a cluster needs at least one node");
        }
        if (cgroups == CgroupMode.KERNEL && runtime != RuntimeKind.PROCESS) {
            throw new IllegalArgumentException("kernel cgroups need the process runtime: the " + runtime.cliName()
                    + " runtime runs no container process to place in one");
        }
        Set<String> names = new HashSet<>();
        for (NodeSpec node : nodes) {
            if (!names.add(node.name())) {
                throw new IllegalArgumentException("node " + node.name() + " is configured twice");
            }
        }
    }

    /** These settings with the control plane and the kubelets at {@code version} with those gates. */
    public ClusterConfig withVersion(KubernetesVersion version, FeatureGates gates) {
        return new ClusterConfig(nodes, version, version, gates, timing, runtime, cgroups, baseDirectory, tls);
    }
}
