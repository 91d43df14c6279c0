package io.kdra.plugin.testing;

import io.grpc.ManagedChannel;
import io.kdra.plugin.DraPlugin;
import io.kdra.plugin.KubeletPlugin;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For tests that start kubelet plugins and dial them as the kubelet does: per test a short directory for the sockets
 * and a set of client channels. After the test the channels are closed, the plugins started here are stopped and the
 * directory is removed. Register it as an instance field with {@code @RegisterExtension}.
 */
public final class PluginFixture implements BeforeEachCallback, AfterEachCallback {

    private final List<KubeletPlugin> started = new ArrayList<>();
    private TempDir dir;
    private Channels channels;

    @Override
    public void beforeEach(ExtensionContext context) {
        dir = new TempDir();
        channels = new Channels();
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        channels.close();
        started.forEach(KubeletPlugin::stop);
        dir.close();
    }

    /** A path in this test's directory. */
    public Path resolve(String other) {
        return dir.resolve(other);
    }

    /** A builder with the registration socket in {@code registry/} and the DRA socket in {@code plugin/}. */
    public KubeletPlugin.Builder builder(String driverName, DraPlugin driver) {
        return KubeletPlugin.builder(driverName, driver)
                .registrarDirectory(dir.resolve("registry"))
                .pluginDataDirectory(dir.resolve("plugin"));
    }

    /** Starts the plugin and stops it after the test, unless the test did. */
    public KubeletPlugin start(KubeletPlugin.Builder builder) throws IOException {
        KubeletPlugin plugin = builder.start();
        started.add(plugin);
        return plugin;
    }

    /** A channel to a Unix socket, closed after the test. */
    public ManagedChannel dial(Path socket) {
        return channels.to(socket);
    }

    /** Closes the channels now, for a test that checks what is left once the kubelet has hung up. */
    public void closeChannels() {
        channels.close();
    }
}
