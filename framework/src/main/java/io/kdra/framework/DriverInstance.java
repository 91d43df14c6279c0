package io.kdra.framework;

import java.util.List;

/**
 * One instance of a test driver to deploy to nodes, as upstream's {@code Driver.SetUp} names its objects.
 *
 * @param namespace the spec's namespace, where the driver's pods and service account live
 * @param driverName the driver's name ({@code <namespace><nameSuffix>.k8s.io})
 * @param instanceName the driver's name with the instance suffix: the {@code app.kubernetes.io/instance} label
 * @param objectSuffix the name suffix and the instance suffix, appended to {@code dra-test-driver} for its ReplicaSet
 * @param serviceAccount the kubelet plugin's service account
 * @param nodeNames the nodes the driver runs on, sorted
 * @param kubeletPlugin whether the kubelet talks to the driver (false: nothing listens on the nodes)
 */
public record DriverInstance(String namespace, String driverName, String instanceName, String objectSuffix,
        String serviceAccount, List<String> nodeNames, boolean kubeletPlugin) {

    public DriverInstance {
        nodeNames = List.copyOf(nodeNames);
    }
}
