package io.kdra.framework;

import io.kdra.plugin.DraPlugin;
import java.io.IOException;

/**
 * Makes a driver author's own {@link DraPlugin} for one node, so that specs run their driver in place of the test
 * driver: {@code Driver.create(f, nodes, resources).plugin((driverName, nodeName, node) -> new GpuDriver(...))}.
 * The framework serves it on the node's sockets with the plugin library, with fault injection, call counting and
 * the gRPC call history as for the test driver.
 */
@FunctionalInterface
public interface PluginFactory {

    /**
     * @param driverName the driver's name in this spec ({@code <namespace>.k8s.io} unless set)
     * @param nodeName the node the plugin serves
     * @param node the node's directories and CDI files
     */
    DraPlugin create(String driverName, String nodeName, NodeAccess node) throws IOException;
}
