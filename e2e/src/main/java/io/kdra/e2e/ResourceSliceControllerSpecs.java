package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import io.kdra.framework.Waits;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.plugin.resourceslice.ResourceSlicePublisher;
import io.kdra.plugin.resourceslice.Slice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group Q: the ResourceSlice controller of the plugin library publishes slices as large as the API allows. */
@DraSpec
@DisplayName("[sig-node] [DRA] ResourceSlice Controller")
@Tag("sig-node")
@Tag("DRA")
class ResourceSliceControllerSpecs {

    private static final int MAX_DEVICES = 128;
    private static final int MAX_ATTRIBUTES = 32;
    private static final int MAX_DOMAIN_LENGTH = 63;
    private static final int MAX_ID_LENGTH = 32;
    private static final int MAX_VALUE_LENGTH = 64;
    private static final int DNS1035_LABEL_MAX_LENGTH = 63;
    private static final String POOL = "network-attached";

    final Framework f = Framework.create("dra");

    @Test
    @DisplayName("creates slices")
    void createsSlices() {
        createResourceSlices(10);
    }

    /** upstream's {@code TestCreateResourceSlices} (test/integration/dra), which the e2e spec runs with 10 slices. */
    private void createResourceSlices(int numSlices) {
        String driverName = f.namespace();
        String domain = "x".repeat(MAX_DOMAIN_LENGTH - ".example.com".length()) + ".example.com";
        DeviceAttribute value = new DeviceAttributeBuilder().withString("v".repeat(MAX_VALUE_LENGTH)).build();
        List<Slice> slices = new ArrayList<>();
        int numDevices = 0;
        for (int i = 0; i < numSlices; i++) {
            List<Device> devices = new ArrayList<>();
            for (int d = 0; d < MAX_DEVICES; d++) {
                Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
                for (int a = 0; a < MAX_ATTRIBUTES; a++) {
                    attributes.put(domain + "/" + "x".repeat(MAX_ID_LENGTH - 4) + String.format("%04d", a), value);
                }
                devices.add(new DeviceBuilder().withName("dev-" + "x".repeat(DNS1035_LABEL_MAX_LENGTH - 4 - 6)
                        + String.format("%06d", numDevices++)).withAttributes(attributes).build());
            }
            slices.add(Slice.ofDevices(devices));
        }
        Callable<List<ResourceSlice>> listSlices = () -> f.client().resources(ResourceSlice.class)
                .withField("spec.driver", driverName).list().getItems();

        f.by("Creating slices");
        ResourceSlicePublisher controller = ResourceSlicePublisher.builder(f.client(), driverName)
                .start(DriverResources.of(POOL, new Pool(slices, null, true, false, 1)));
        f.cleanup("stop the ResourceSlice controller and delete its slices", () -> {
            controller.stop();
            Waits.until("slices of " + driverName + " deleted", Duration.ofMinutes(1)).until(() -> {
                f.client().resources(ResourceSlice.class).withField("spec.driver", driverName).delete();
                return listSlices.call();
            }, hasSize(0));
        });

        Waits.until("all " + numSlices + " slices", Duration.ofMinutes(3)).until(listSlices, hasSize(numSlices));
        ResourceSlicePublisher.Stats expected = new ResourceSlicePublisher.Stats(numSlices, 0, 0);
        assertThat(controller.stats()).isEqualTo(expected);
        Waits.during("no further changes", f.timeouts().pending()).until(controller::stats, equalTo(expected));

        f.by("Deleting slices");
        controller.update(DriverResources.of(POOL, new Pool(List.of(new Slice(List.of(), List.of())), null, true,
                false, 1)));
        Waits.until("one empty slice left", Duration.ofMinutes(2)).until(listSlices,
                list -> list.size() == 1 && list.get(0).getSpec().getDevices().isEmpty());
        // upstream's controller creates the empty slice and deletes the ten; kdra's publisher may reuse one of them
        // (an update instead of a create and a delete): either way eleven writes produced slices and ten went away
        ResourcePublisherChanges changes = new ResourcePublisherChanges(numSlices);
        Waits.until("the controller counted its changes", Duration.ofSeconds(30)).until(controller::stats,
                changes::done);
        ResourceSlicePublisher.Stats afterDelete = controller.stats();
        Waits.during("no further changes", f.timeouts().pending()).until(controller::stats, equalTo(afterDelete));
    }

    /** The stats of a publisher that replaced {@code numSlices} full slices by one empty slice. */
    private record ResourcePublisherChanges(int numSlices) {
        boolean done(ResourceSlicePublisher.Stats stats) {
            return stats.creates() + stats.updates() == numSlices + 1L
                    && stats.deletes() + stats.updates() == numSlices;
        }
    }
}
