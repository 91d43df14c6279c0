package io.kdra.allocator.cel;

import io.kdra.kube.Quantity;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code device} variable of Kubernetes' DRA CEL environment ({@code kubernetes.DRADevice}): its declared type and
 * its value for one device. Attribute and capacity names without a domain go under the driver's domain.
 */
final class DeviceVariable {

    static final String NAME = "device";
    private static final String DRIVER = "driver";
    private static final String ATTRIBUTES = "attributes";
    private static final String CAPACITY = "capacity";
    private static final String ALLOW_MULTIPLE_ALLOCATIONS = "allowMultipleAllocations";

    private DeviceVariable() {
    }

    /** The object type; {@code allowMultipleAllocations} exists only with DRAConsumableCapacity. */
    static StructType type(boolean consumableCapacity) {
        Map<String, CelType> fields = new LinkedHashMap<>();
        fields.put(DRIVER, SimpleType.STRING);
        fields.put(ATTRIBUTES, MapType.create(SimpleType.STRING, MapType.create(SimpleType.STRING, SimpleType.DYN)));
        fields.put(CAPACITY, MapType.create(SimpleType.STRING, MapType.create(SimpleType.STRING, QuantityLibrary.TYPE)));
        if (consumableCapacity) {
            fields.put(ALLOW_MULTIPLE_ALLOCATIONS, SimpleType.BOOL);
        }
        return StructType.create("kubernetes.DRADevice", ImmutableSet.copyOf(fields.keySet()),
                name -> Optional.ofNullable(fields.get(name)));
    }

    static CelTypeProvider typeProvider(StructType type) {
        return new CelTypeProvider() {
            @Override
            public ImmutableList<CelType> types() {
                return ImmutableList.of(type);
            }

            @Override
            public Optional<CelType> findType(String typeName) {
                return type.name().equals(typeName) ? Optional.of(type) : Optional.empty();
            }
        };
    }

    /**
     * The variable's value for {@code device} published by {@code driver}.
     *
     * @throws SelectorEvaluationException for an attribute without a value or with an invalid version, or an invalid
     *     capacity quantity (Kubernetes fails the evaluation the same way)
     */
    static Map<String, Object> value(String driver, Device device, boolean consumableCapacity)
            throws SelectorEvaluationException {
        Map<String, Map<String, Object>> attributes = new HashMap<>();
        if (device.getAttributes() != null) {
            for (Map.Entry<String, DeviceAttribute> attribute : device.getAttributes().entrySet()) {
                put(attributes, driver, attribute.getKey(), attributeValue(attribute.getKey(), attribute.getValue()));
            }
        }
        Map<String, Map<String, Object>> capacity = new HashMap<>();
        if (device.getCapacity() != null) {
            for (Map.Entry<String, DeviceCapacity> entry : device.getCapacity().entrySet()) {
                put(capacity, driver, entry.getKey(), capacityValue(entry.getKey(), entry.getValue()));
            }
        }
        Map<String, Object> value = new HashMap<>();
        value.put(DRIVER, driver);
        value.put(ATTRIBUTES, new DomainMap(attributes));
        value.put(CAPACITY, new DomainMap(capacity));
        if (consumableCapacity) {
            value.put(ALLOW_MULTIPLE_ALLOCATIONS, Boolean.TRUE.equals(device.getAllowMultipleAllocations()));
        }
        return value;
    }

    private static void put(Map<String, Map<String, Object>> domains, String driver, String qualifiedName,
            Object value) {
        int separator = qualifiedName.indexOf('/');
        String domain = separator < 0 ? driver : qualifiedName.substring(0, separator);
        String name = qualifiedName.substring(separator + 1);
        domains.computeIfAbsent(domain, unused -> new HashMap<>()).put(name, value);
    }

    /** fabric8 models an absent list as an empty one. */
    private static boolean isSet(List<?> values) {
        return values != null && !values.isEmpty();
    }

    /** The single value an attribute carries; list values (DRAListTypeAttributes) become lists. */
    private static Object attributeValue(String name, DeviceAttribute attribute) throws SelectorEvaluationException {
        if (attribute != null) {
            if (isSet(attribute.getInts())) {
                return List.copyOf(attribute.getInts());
            }
            if (isSet(attribute.getBools())) {
                return List.copyOf(attribute.getBools());
            }
            if (isSet(attribute.getStrings())) {
                return List.copyOf(attribute.getStrings());
            }
            if (isSet(attribute.getVersions())) {
                List<Semver> versions = new ArrayList<>();
                for (String version : attribute.getVersions()) {
                    versions.add(version(name, version));
                }
                return versions;
            }
            if (attribute.getInt() != null) {
                return attribute.getInt();
            }
            if (attribute.getBool() != null) {
                return attribute.getBool();
            }
            if (attribute.getString() != null) {
                return attribute.getString();
            }
            if (attribute.getVersion() != null) {
                return version(name, attribute.getVersion());
            }
        }
        throw new SelectorEvaluationException("attribute " + name + ": unsupported attribute value");
    }

    private static Semver version(String name, String text) throws SelectorEvaluationException {
        try {
            return Semver.parse(text);
        } catch (IllegalArgumentException invalid) {
            throw new SelectorEvaluationException(
                    "attribute " + name + ": parse semantic version: " + invalid.getMessage(), invalid);
        }
    }

    private static Quantity capacityValue(String name, DeviceCapacity capacity) throws SelectorEvaluationException {
        if (capacity == null || capacity.getValue() == null) {
            throw new SelectorEvaluationException("capacity " + name + ": missing value");
        }
        try {
            return Quantity.fromFabric8(capacity.getValue());
        } catch (NumberFormatException invalid) {
            throw new SelectorEvaluationException("capacity " + name + ": " + invalid.getMessage(), invalid);
        }
    }
}
