package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumptionBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelectorBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceToleration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTolerationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Compact builders for the resource.k8s.io/v1 objects the allocator tests use. */
final class Fixtures {

    static final String DRIVER = "test.example.com";
    static final String NODE = "node-1";

    private Fixtures() {}

    static Node node(String name, String... labels) {
        Map<String, String> labelMap = new LinkedHashMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            labelMap.put(labels[i], labels[i + 1]);
        }
        return new NodeBuilder().withNewMetadata().withName(name).withLabels(labelMap).endMetadata().build();
    }

    /** A slice of a one-slice pool at generation 1, local to {@code node} (null: no node selection set). */
    static ResourceSliceBuilder slice(String name, String pool, String node) {
        ResourceSliceBuilder builder = new ResourceSliceBuilder()
                .withNewMetadata().withName(name).endMetadata()
                .withNewSpec()
                .withDriver(DRIVER)
                .withNewPool(1L, pool, 1L)
                .endSpec();
        if (node != null) {
            builder.editSpec().withNodeName(node).endSpec();
        }
        return builder;
    }

    /** Sets the pool generation and slice count of a slice. */
    static ResourceSliceBuilder pool(ResourceSliceBuilder slice, long generation, long sliceCount) {
        return slice.editSpec().editPool().withGeneration(generation).withResourceSliceCount(sliceCount).endPool()
                .endSpec();
    }

    static DeviceBuilder device(String name) {
        return new DeviceBuilder().withName(name);
    }

    static DeviceAttribute str(String value) {
        return new DeviceAttributeBuilder().withString(value).build();
    }

    static DeviceAttribute integer(long value) {
        return new DeviceAttributeBuilder().withInt(value).build();
    }

    static DeviceAttribute version(String value) {
        return new DeviceAttributeBuilder().withVersion(value).build();
    }

    static DeviceCapacity capacity(String value) {
        return new DeviceCapacityBuilder().withValue(new Quantity(value)).build();
    }

    static DeviceCapacityBuilder capacityWithPolicy(String value) {
        return new DeviceCapacityBuilder().withValue(new Quantity(value));
    }

    static CounterSet counterSet(String name, String... counters) {
        return new CounterSetBuilder().withName(name).withCounters(counterMap(counters)).build();
    }

    static DeviceCounterConsumption consumes(String counterSet, String... counters) {
        return new DeviceCounterConsumptionBuilder()
                .withCounterSet(counterSet).withCounters(counterMap(counters)).build();
    }

    private static Map<String, Counter> counterMap(String... nameValue) {
        Map<String, Counter> counters = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            counters.put(nameValue[i], new Counter(new Quantity(nameValue[i + 1])));
        }
        return counters;
    }

    static DeviceTaint taint(String key, String value, String effect) {
        return new DeviceTaintBuilder().withKey(key).withValue(value).withEffect(effect).build();
    }

    static DeviceToleration toleration(String key, String operator, String value, String effect) {
        return new DeviceTolerationBuilder()
                .withKey(key).withOperator(operator).withValue(value).withEffect(effect).build();
    }

    static DeviceClass deviceClass(String name, String... expressions) {
        return new DeviceClassBuilder()
                .withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withSelectors(selectors(expressions)).endSpec()
                .build();
    }

    static List<DeviceSelector> selectors(String... expressions) {
        List<DeviceSelector> selectors = new ArrayList<>();
        for (String expression : expressions) {
            selectors.add(new DeviceSelectorBuilder().withNewCel(expression).build());
        }
        return selectors;
    }

    static ResourceClaimBuilder claim(String name, DeviceRequest... requests) {
        return new ResourceClaimBuilder()
                .withNewMetadata().withNamespace("ns").withName(name).withUid("uid-" + name).endMetadata()
                .withNewSpec().withNewDevices().withRequests(requests).endDevices().endSpec();
    }

    /** An ExactCount request for {@code count} devices of a class. */
    static DeviceRequest exact(String name, String className, long count) {
        return request(name, new ExactDeviceRequestBuilder().withDeviceClassName(className).withCount(count));
    }

    static DeviceRequest request(String name, ExactDeviceRequestBuilder exactly) {
        return new DeviceRequestBuilder().withName(name).withExactly(exactly.build()).build();
    }

    static ExactDeviceRequestBuilder exactly(String className) {
        return new ExactDeviceRequestBuilder().withDeviceClassName(className);
    }

    static DeviceRequest firstAvailable(String name, DeviceSubRequest... subRequests) {
        return new DeviceRequestBuilder().withName(name).withFirstAvailable(subRequests).build();
    }

    static DeviceSubRequest sub(String name, String className, long count, String... expressions) {
        return new DeviceSubRequestBuilder().withName(name).withDeviceClassName(className).withCount(count)
                .withSelectors(selectors(expressions)).build();
    }

    static NodeSelector labelSelector(String key, String operator, String... values) {
        return new NodeSelectorBuilder().addNewNodeSelectorTerm().addNewMatchExpression()
                .withKey(key).withOperator(operator).withValues(values)
                .endMatchExpression().endNodeSelectorTerm().build();
    }
}
