package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelectorBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.kdra.framework.Builder;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The specs of upstream's {@code multiNodeTests}: two to eight nodes (skipped with fewer), run under "control plane"
 * (pods only get scheduled) and "kubelet ... on multiple nodes" (pods run); the subclasses are those two groups.
 * Upstream's contexts "with different ResourceSlices" and "with node-local resources" set up different drivers before
 * each spec; here each spec sets up its context's driver first.
 */
abstract class AbstractMultiNodeSpecs {

    private static final String FIRST_DEVICE = "pre-defined-device-01";
    private static final String SECOND_DEVICE = "pre-defined-device-02";

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 2, 8);

    /** Whether the driver registers with the kubelet, so that pods run (the "kubelet" group) or only get scheduled. */
    abstract boolean withKubelet();

    /** The context's driver, running on the nodes, and its builder. */
    private Builder driverWith(Map<String, io.kdra.plugin.resourceslice.DriverResources> resources)
            throws Exception {
        Driver driver = Driver.instance(f).withKubelet(withKubelet());
        driver.run(nodes, resources);
        return Builder.now(f, driver);
    }

    @Test
    @DisplayName("with different ResourceSlices keeps pod pending because of CEL runtime errors")
    void withDifferentResourceSlicesKeepsPodPendingBecauseOfCelRuntimeErrors() throws Exception {
        Map<String, DeviceAttribute> firstNode = Map.of(
                "healthy", new DeviceAttributeBuilder().withBool(true).build(),
                "exists", new DeviceAttributeBuilder().withBool(true).build());
        // no "exists" attribute
        Map<String, DeviceAttribute> secondNode = Map.of("healthy", new DeviceAttributeBuilder().withBool(false).build());
        Builder b = driverWith(Resources.driverResourcesNow(nodes, -1, Map.of(FIRST_DEVICE, firstNode),
                Map.of(SECOND_DEVICE, secondNode)));

        Callable<List<ResourceSlice>> slices = () -> f.client().resources(ResourceSlice.class)
                .withField("spec.driver", b.driverName()).list().getItems();
        Waits.until("one slice with each device", f.timeouts().podStartShort()).until(() -> {
            List<List<Device>> devices = slices.call().stream().map(slice -> slice.getSpec().getDevices()).toList();
            return devices.size() == 2 && devices.stream().anyMatch(list -> isOnly(list, FIRST_DEVICE, firstNode))
                    && devices.stream().anyMatch(list -> isOnly(list, SECOND_DEVICE, secondNode));
        });

        // Scheduling the pod where the selector works would hide that something is wrong with it.
        Builder.PodWithTemplate inline = b.podInline();
        ExactDeviceRequest request = inline.template().getSpec().getSpec().getDevices().getRequests().get(0)
                .getExactly();
        List<DeviceSelector> selectors = new ArrayList<>(request.getSelectors());
        // a runtime error on one node, but not on all
        selectors.add(new DeviceSelectorBuilder().withNewCel()
                .withExpression("device.attributes[\"" + b.driverName() + "\"].exists").endCel().build());
        request.setSelectors(selectors);
        b.create(inline.pod(), inline.template());

        Callable<Optional<PodCondition>> scheduled = Pods.condition(f, inline.pod(), "PodScheduled");
        Waits.until("scheduling failure: pod must not get scheduled because of a CEL runtime error",
                f.timeouts().podStartShort()).until(() -> scheduled.call().map(condition -> {
                    if (!"False".equals(condition.getStatus())) {
                        throw new AssertionError("pod got scheduled unexpectedly");
                    }
                    return condition.getMessage() != null && condition.getMessage().contains("CEL runtime error");
                }).orElse(false));
    }

    private static boolean isOnly(List<Device> devices, String name, Map<String, DeviceAttribute> attributes) {
        return devices.size() == 1 && name.equals(devices.get(0).getName())
                && attributes.equals(devices.get(0).getAttributes());
    }

    @Test
    @DisplayName("with node-local resources uses all resources")
    void withNodeLocalResourcesUsesAllResources() throws Exception {
        Builder b = driverWith(Resources.driverResourcesNow(nodes, 1));
        List<Pod> pods = new ArrayList<>();
        List<HasMetadata> objects = new ArrayList<>();
        for (int i = 0; i < nodes.nodeNames().size(); i++) {
            Builder.PodWithTemplate inline = b.podInline();
            pods.add(inline.pod());
            objects.add(inline.pod());
            objects.add(inline.template());
        }
        b.create(objects.toArray(HasMetadata[]::new));

        for (Pod pod : pods) {
            if (withKubelet()) {
                Pods.waitForRunning(f, pod);
            } else {
                Pods.waitForScheduled(f, pod);
            }
        }

        // One device per node: the pods must have landed on different nodes. That they did could be a coincidence,
        // but if they do not cover all nodes, something is wrong.
        Map<String, String> used = new HashMap<>();
        for (Pod pod : pods) {
            Pod current = Pods.get(f, pod).call();
            String other = used.put(current.getSpec().getNodeName(), current.getMetadata().getName());
            assertThat(other).as("Pod %s got started on the same node %s as pod %s although claim allocation should "
                    + "have been limited to one claim per node.", current.getMetadata().getName(),
                    current.getSpec().getNodeName(), other).isNull();
        }
    }
}
