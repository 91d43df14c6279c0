package io.kdra.plugin.metadata;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.NetworkDeviceData;
import io.fabric8.kubernetes.api.model.resource.v1.NetworkDeviceDataBuilder;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads and writes device metadata files. A file is a JSON stream: the same {@link DeviceMetadata} encoded once per
 * version the driver configured, in that order, one object per line. A reader takes the first object whose
 * {@code apiVersion} it knows, as upstream's {@code devicemetadata.DecodeMetadataFromStream}, so a driver lists its
 * newest version first and older readers still find theirs further on.
 */
public final class DeviceMetadataCodec {

    /** As in a ResourceSlice device. */
    public static final int MAX_ATTRIBUTES = 32;

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private DeviceMetadataCodec() {
    }

    /**
     * An object read from a stream.
     *
     * @param version the version it was encoded in
     * @param metadata its content
     */
    public record Decoded(MetadataVersion version, DeviceMetadata metadata) {
    }

    /**
     * Encodes the metadata once per version, in the given order.
     *
     * @throws IllegalArgumentException without versions
     */
    public static byte[] encode(DeviceMetadata metadata, List<MetadataVersion> versions) {
        if (versions.isEmpty()) {
            throw new IllegalArgumentException("no metadata version to encode " + metadata.namespace() + "/"
                    + metadata.name() + " in");
        }
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        for (MetadataVersion version : versions) {
            stream.writeBytes(JSON.writeValueAsBytes(toJson(metadata, version)));
            stream.write('\n');
        }
        return stream.toByteArray();
    }

    /**
     * Decodes and validates the first object of a known version in the stream; objects of unknown versions before it
     * are skipped.
     *
     * @throws IllegalArgumentException if the text is no JSON stream, holds no object of a known version, or that
     *     object is invalid (the message names the field)
     */
    public static Decoded decode(byte[] stream) {
        List<String> seen = new ArrayList<>();
        try (MappingIterator<JsonNode> objects = JSON.readerFor(JsonNode.class).readValues(stream)) {
            while (objects.hasNext()) {
                JsonNode object = objects.next();
                String apiVersion = object.path("apiVersion").asString("");
                Optional<MetadataVersion> version = MetadataVersion.of(apiVersion);
                if (version.isEmpty() || !MetadataVersion.KIND.equals(object.path("kind").asString(""))) {
                    seen.add(apiVersion + ", Kind=" + object.path("kind").asString(""));
                    continue;
                }
                return new Decoded(version.get(), fromJson(object));
            }
        } catch (JacksonException e) {
            throw new IllegalArgumentException("invalid device metadata stream: " + e.getOriginalMessage(), e);
        }
        throw new IllegalArgumentException("no DeviceMetadata of a known version (" + List.of(MetadataVersion.values())
                + ") in the stream; found " + seen);
    }

    /** {@link #decode(byte[])} of text, for example the output of {@code cat <file>} in a container. */
    public static Decoded decode(String stream) {
        return decode(stream.getBytes(StandardCharsets.UTF_8));
    }

    private static ObjectNode toJson(DeviceMetadata metadata, MetadataVersion version) {
        ObjectNode object = JSON.createObjectNode();
        object.put("kind", MetadataVersion.KIND);
        object.put("apiVersion", version.apiVersion());
        ObjectNode meta = object.putObject("metadata");
        meta.put("name", metadata.name());
        meta.put("namespace", metadata.namespace());
        meta.put("uid", metadata.uid());
        meta.put("generation", metadata.generation());
        if (metadata.podClaimName() != null) {
            object.put("podClaimName", metadata.podClaimName());
        }
        ArrayNode requests = object.putArray("requests");
        for (DeviceMetadata.Request request : metadata.requests()) {
            ObjectNode requestJson = requests.addObject();
            requestJson.put("name", request.name());
            ArrayNode devices = requestJson.putArray("devices");
            for (DeviceMetadata.Device device : request.devices()) {
                ObjectNode deviceJson = devices.addObject();
                deviceJson.put("driver", device.driver());
                deviceJson.put("pool", device.pool());
                deviceJson.put("name", device.name());
                if (!device.attributes().isEmpty()) {
                    ObjectNode attributes = deviceJson.putObject("attributes");
                    new TreeMap<>(device.attributes()).forEach((key, value) -> attributes.set(key, toJson(value)));
                }
                if (device.networkData() != null) {
                    deviceJson.set("networkData", toJson(device.networkData()));
                }
            }
        }
        return object;
    }

    private static ObjectNode toJson(DeviceAttribute attribute) {
        ObjectNode json = JSON.createObjectNode();
        if (attribute.getBool() != null) {
            json.put("bool", attribute.getBool());
        }
        if (attribute.getInt() != null) {
            json.put("int", attribute.getInt());
        }
        if (attribute.getString() != null) {
            json.put("string", attribute.getString());
        }
        if (attribute.getVersion() != null) {
            json.put("version", attribute.getVersion());
        }
        putList(json, "bools", attribute.getBools());
        putList(json, "ints", attribute.getInts());
        putList(json, "strings", attribute.getStrings());
        putList(json, "versions", attribute.getVersions());
        return json;
    }

    private static void putList(ObjectNode json, String field, List<?> values) {
        if (values != null && !values.isEmpty()) {
            json.set(field, JSON.valueToTree(values));
        }
    }

    private static ObjectNode toJson(NetworkDeviceData data) {
        ObjectNode json = JSON.createObjectNode();
        if (data.getInterfaceName() != null) {
            json.put("interfaceName", data.getInterfaceName());
        }
        putList(json, "ips", data.getIps());
        if (data.getHardwareAddress() != null) {
            json.put("hardwareAddress", data.getHardwareAddress());
        }
        return json;
    }

    private static DeviceMetadata fromJson(JsonNode object) {
        JsonNode meta = object.path("metadata");
        List<DeviceMetadata.Request> requests = new ArrayList<>();
        JsonNode requestsJson = object.path("requests");
        for (int r = 0; r < requestsJson.size(); r++) {
            JsonNode requestJson = requestsJson.get(r);
            String path = "requests[" + r + "]";
            String requestName = required(requestJson, "name", path);
            List<DeviceMetadata.Device> devices = new ArrayList<>();
            JsonNode devicesJson = requestJson.path("devices");
            for (int d = 0; d < devicesJson.size(); d++) {
                devices.add(device(devicesJson.get(d), path + ".devices[" + d + "]"));
            }
            requests.add(new DeviceMetadata.Request(requestName, devices));
        }
        String podClaimName = object.hasNonNull("podClaimName") ? object.get("podClaimName").asString() : null;
        return new DeviceMetadata(meta.path("name").asString(""), meta.path("namespace").asString(""),
                meta.path("uid").asString(""), meta.path("generation").asLong(0), podClaimName, requests);
    }

    private static DeviceMetadata.Device device(JsonNode json, String path) {
        String driver = required(json, "driver", path);
        String pool = required(json, "pool", path);
        String name = required(json, "name", path);
        Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
        JsonNode attributesJson = json.path("attributes");
        if (attributesJson.size() > MAX_ATTRIBUTES) {
            throw invalid(path + ".attributes", "Too many: " + attributesJson.size() + ": must have at most "
                    + MAX_ATTRIBUTES + " items");
        }
        for (Map.Entry<String, JsonNode> attribute : attributesJson.properties()) {
            attributes.put(attribute.getKey(), attribute(attribute.getValue(), path + ".attributes["
                    + attribute.getKey() + "]"));
        }
        NetworkDeviceData networkData = null;
        if (json.hasNonNull("networkData")) {
            JsonNode data = json.get("networkData");
            NetworkDeviceDataBuilder builder = new NetworkDeviceDataBuilder()
                    .withHardwareAddress(textOrNull(data, "hardwareAddress"))
                    .withInterfaceName(textOrNull(data, "interfaceName"));
            data.path("ips").forEach(ip -> builder.addToIps(ip.asString()));
            networkData = builder.build();
        }
        return new DeviceMetadata.Device(driver, pool, name, attributes, networkData);
    }

    private static DeviceAttribute attribute(JsonNode json, String path) {
        int values = 0;
        for (String field : List.of("bool", "int", "string", "version", "bools", "ints", "strings", "versions")) {
            if (json.hasNonNull(field)) {
                values++;
            }
        }
        if (values != 1) {
            throw invalid(path, "must have exactly one value, has " + values);
        }
        // through the builder, so that a decoded attribute equals one a driver built
        DeviceAttributeBuilder attribute = new DeviceAttributeBuilder()
                .withBool(json.hasNonNull("bool") ? json.get("bool").asBoolean() : null)
                .withInt(json.hasNonNull("int") ? json.get("int").asLong() : null)
                .withString(textOrNull(json, "string"))
                .withVersion(textOrNull(json, "version"));
        for (JsonNode value : json.path("bools")) {
            attribute.addToBools(value.asBoolean());
        }
        for (JsonNode value : json.path("ints")) {
            attribute.addToInts(value.asLong());
        }
        json.path("strings").forEach(value -> attribute.addToStrings(value.asString()));
        json.path("versions").forEach(value -> attribute.addToVersions(value.asString()));
        return attribute.build();
    }

    private static String textOrNull(JsonNode json, String field) {
        return json.hasNonNull(field) ? json.get(field).asString() : null;
    }

    private static String required(JsonNode json, String field, String path) {
        String value = textOrNull(json, field);
        if (value == null || value.isEmpty()) {
            throw invalid(path + "." + field, "Required value");
        }
        return value;
    }

    private static IllegalArgumentException invalid(String path, String problem) {
        return new IllegalArgumentException("invalid DeviceMetadata: " + path + ": " + problem);
    }
}
