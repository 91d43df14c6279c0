package io.kdra.framework.proxy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kdra.framework.DriverDeployment;
import io.kdra.framework.DriverInstance;
import io.kdra.framework.NodeAccess;
import io.kdra.plugin.ConnectionListener;
import io.kdra.plugin.ListenerFactory;
import io.kdra.plugin.cdi.FileOperations;
import java.io.IOException;
import java.nio.channels.ByteChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A driver instance deployed to the nodes of any cluster as upstream's {@code Driver.SetUp} does: a pod per node runs
 * the CSI hostpath image with the kubelet's plugin directories and the CDI directory mounted by hostPath; the driver's
 * gRPC servers stay in the test JVM, and each socket the kubelet dials on a node is served by a proxy exec'd in that
 * node's pod, whose port the JVM reaches through {@code pods/portforward}. CDI files are written through exec, and the
 * driver publishes its slices with the identity of its pod on the node (impersonation).
 *
 * <p>Upstream runs one ReplicaSet with pod anti-affinity; here each node gets a ReplicaSet of one pod bound to it by
 * node affinity, which gives one pod per node on schedulers without inter-pod affinity as well.
 */
public final class ProxyDeployment implements DriverDeployment {

    /** The image of upstream's proxy pods (dra-test-driver-proxy.yaml): it has the proxy mode and a shell. */
    public static final String IMAGE = "registry.k8s.io/sig-storage/hostpathplugin:v1.17.1";
    /** Where the proxy pods mount the node's CDI directory ({@code /var/run/cdi}). */
    static final String CDI_MOUNT = "/cdi";
    /** The label naming the node of a proxy pod's ReplicaSet. */
    static final String NODE_LABEL = "dra-test-driver/node";

    private static final Logger LOG = LoggerFactory.getLogger(ProxyDeployment.class);
    private static final String CONTAINER = "pause";
    private static final Duration POD_RUNNING = Duration.ofMinutes(3);
    private static final Duration SCALED_DOWN = Duration.ofMinutes(2);
    private static final int FIRST_LISTENER_PORT = 9000;

    private final KubernetesClient admin;
    private final DriverInstance instance;
    private final Path kubeletRootDirectory;
    private final List<String> replicaSets = new ArrayList<>();
    private final Map<String, NodeAccess> nodes = new LinkedHashMap<>();
    private final List<KubernetesClient> driverClients = new ArrayList<>();
    private final NodeBoundSlicePolicy slicePolicy;
    private boolean closed;

    private ProxyDeployment(KubernetesClient admin, DriverInstance instance, Path kubeletRootDirectory) {
        this.admin = admin;
        this.instance = instance;
        this.kubeletRootDirectory = kubeletRootDirectory;
        this.slicePolicy = new NodeBoundSlicePolicy(admin, instance);
    }

    /**
     * Creates the service account, upstream's admission policy for the plugin's slices (where the API server serves
     * it) and a proxy pod on every node of the instance, and waits until they run.
     *
     * @param kubeletRootDirectory the kubelet's root directory on the nodes ({@code /var/lib/kubelet})
     * @throws IllegalStateException when a pod does not run within 3 minutes; what was created is removed
     */
    public static ProxyDeployment create(KubernetesClient admin, DriverInstance instance, Path kubeletRootDirectory) {
        ProxyDeployment deployment = new ProxyDeployment(admin, instance, kubeletRootDirectory);
        try {
            deployment.deploy();
            return deployment;
        } catch (RuntimeException e) {
            try {
                deployment.close();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    private void deploy() {
        admin.serviceAccounts().inNamespace(instance.namespace()).resource(new ServiceAccountBuilder()
                .withNewMetadata().withName(instance.serviceAccount()).endMetadata().build()).create();
        List<String> nodeNames = instance.nodeNames();
        for (int i = 0; i < nodeNames.size(); i++) {
            String name = "dra-test-driver" + instance.objectSuffix() + (nodeNames.size() > 1 ? "-" + i : "");
            admin.apps().replicaSets().inNamespace(instance.namespace()).resource(replicaSet(name, nodeNames.get(i)))
                    .create();
            replicaSets.add(name);
        }
        for (String nodeName : nodeNames) {
            ProxyPod proxyPod = new ProxyPod(admin, instance.namespace(), instance.instanceName(), nodeName);
            Pod pod = Awaitility.await("the driver proxy pod of " + instance.instanceName() + " on " + nodeName)
                    .atMost(POD_RUNNING).pollInterval(Duration.ofMillis(200))
                    .until(proxyPod::find, Optional::isPresent).orElseThrow();
            nodes.put(nodeName, access(proxyPod, pod));
        }
        // created last: deleting the namespace does not remove a cluster-scoped object, so a run interrupted before
        // the driver registered this deployment's cleanup must not have made it yet
        slicePolicy.create();
        LOG.info("driver {} proxied on {}", instance.instanceName(), nodeNames);
    }

    private ReplicaSet replicaSet(String name, String nodeName) {
        Map<String, String> labels = Map.of(
                "app.kubernetes.io/instance", instance.instanceName(),
                "app.kubernetes.io/part-of", "dra-test-driver",
                "app.kubernetes.io/name", "dra-test-driver-kubelet-plugin",
                "app.kubernetes.io/component", "kubelet-plugin",
                NODE_LABEL, nodeName);
        String pluginDirectory = kubeletRootDirectory.resolve("plugins").resolve(instance.driverName()).toString();
        String registryDirectory = kubeletRootDirectory.resolve("plugins_registry").toString();
        return new ReplicaSetBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
                .withNewSpec().withReplicas(1).withNewSelector().withMatchLabels(labels).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(labels).endMetadata()
                .withNewSpec().withServiceAccountName(instance.serviceAccount())
                .withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm().addNewMatchExpression().withKey("kubernetes.io/hostname")
                .withOperator("In").withValues(nodeName).endMatchExpression().endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity()
                .withNewPodAntiAffinity().addNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withNewLabelSelector().withMatchLabels(Map.of("app.kubernetes.io/instance", instance.instanceName()))
                .endLabelSelector().withTopologyKey("kubernetes.io/hostname")
                .endRequiredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().endAffinity()
                .addNewContainer().withName(CONTAINER).withImage(IMAGE)
                .withCommand("/bin/sh", "-c", "while true; do sleep 10000; done")
                .withNewSecurityContext().withPrivileged(true).endSecurityContext()
                .addNewVolumeMount().withName("socket-dir").withMountPath(pluginDirectory).endVolumeMount()
                .addNewVolumeMount().withName("registration-dir").withMountPath(registryDirectory).endVolumeMount()
                .addNewVolumeMount().withName("cdi-dir").withMountPath(CDI_MOUNT).endVolumeMount()
                .endContainer()
                .addNewVolume().withName("socket-dir").withNewHostPath().withPath(pluginDirectory)
                .withType("DirectoryOrCreate").endHostPath().endVolume()
                .addNewVolume().withName("registration-dir").withNewHostPath().withPath(registryDirectory)
                .withType("Directory").endHostPath().endVolume()
                .addNewVolume().withName("cdi-dir").withNewHostPath().withPath("/var/run/cdi")
                .withType("DirectoryOrCreate").endHostPath().endVolume()
                .endSpec().endTemplate().endSpec().build();
    }

    /** @param pod the proxy pod found first, whose identity the driver keeps when the pod is replaced */
    private NodeAccess access(ProxyPod proxyPod, Pod pod) {
        String nodeName = proxyPod.nodeName();
        PodCommands commands = new PodCommands(admin, proxyPod, CONTAINER);
        FileOperations cdiFiles = new ExecFileOperations(commands, CDI_MOUNT);
        AtomicInteger ports = new AtomicInteger(FIRST_LISTENER_PORT);
        ListenerFactory listeners = socketPath -> {
            int port = ports.incrementAndGet();
            ProxyCommand proxy = ProxyCommand.start(commands, socketPath, port);
            PortForwardListener forwarded = new PortForwardListener(admin, proxyPod, port);
            return new ConnectionListener() {
                @Override
                public ByteChannel accept() throws IOException {
                    return forwarded.accept();
                }

                @Override
                public void close() {
                    forwarded.close();
                    proxy.close();
                }
            };
        };
        return new NodeAccess() {
            @Override
            public String nodeName() {
                return nodeName;
            }

            @Override
            public Path pluginsRegistryDirectory() {
                return kubeletRootDirectory.resolve("plugins_registry");
            }

            @Override
            public Path pluginsDirectory() {
                return kubeletRootDirectory.resolve("plugins");
            }

            @Override
            public Optional<ListenerFactory> listenerFactory() {
                return Optional.of(listeners);
            }

            @Override
            public FileOperations cdiFiles() {
                return cdiFiles;
            }

            @Override
            public KubernetesClient driverClient(String namespace, String serviceAccount) {
                return impersonate(pod, serviceAccount);
            }
        };
    }

    /** The pod's identity on its node, as a projected service account token of the pod would give. */
    private synchronized KubernetesClient impersonate(Pod pod, String serviceAccount) {
        String namespace = pod.getMetadata().getNamespace();
        Config config = new ConfigBuilder(admin.getConfiguration())
                .withImpersonateUsername("system:serviceaccount:" + namespace + ":" + serviceAccount)
                .withImpersonateGroups("system:serviceaccounts", "system:serviceaccounts:" + namespace)
                // header names cannot hold the keys' slash: escaped as client-go does, the server unescapes them
                .withImpersonateExtras(Map.of(
                        "authentication.kubernetes.io%2Fpod-name", List.of(pod.getMetadata().getName()),
                        "authentication.kubernetes.io%2Fpod-uid", List.of(pod.getMetadata().getUid()),
                        "authentication.kubernetes.io%2Fnode-name", List.of(pod.getSpec().getNodeName())))
                .build();
        KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
        driverClients.add(client);
        return client;
    }

    @Override
    public NodeAccess node(String nodeName) {
        NodeAccess access = nodes.get(nodeName);
        if (access == null) {
            throw new IllegalArgumentException("driver " + instance.instanceName() + " was not deployed to node "
                    + nodeName);
        }
        return access;
    }

    /** Scales the proxy pods down and waits until they are gone, then deletes the ReplicaSets and account. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (String name : replicaSets) {
            admin.apps().replicaSets().inNamespace(instance.namespace()).withName(name).scale(0);
        }
        Awaitility.await("the driver proxy pods of " + instance.instanceName() + " gone").atMost(SCALED_DOWN)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> admin.pods().inNamespace(instance.namespace())
                        .withLabel("app.kubernetes.io/instance", instance.instanceName()).list().getItems().isEmpty());
        for (String name : replicaSets) {
            admin.apps().replicaSets().inNamespace(instance.namespace()).withName(name).delete();
        }
        admin.serviceAccounts().inNamespace(instance.namespace()).withName(instance.serviceAccount()).delete();
        slicePolicy.delete();
        driverClients.forEach(KubernetesClient::close);
        driverClients.clear();
    }
}
