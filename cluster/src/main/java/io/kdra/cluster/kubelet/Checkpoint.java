package io.kdra.cluster.kubelet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.CRC32;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The DRA manager's checkpoint file {@code <root>/dra_manager_state}, in the kubelet's shape:
 * {@code {"Data":"<json>","Checksum":<CRC-32 of Data>}} where Data is
 * {@code {"kind":"DRACheckpoint","apiVersion":"checkpoint.dra.kubelet.k8s.io/v1","Entries":[...]}} and each entry is
 * {@code {ClaimUID, ClaimName, Namespace, PodUIDs: {uid: {}}, DriverState: {driver: {Devices: [{PoolName,
 * DeviceName, ShareID, RequestNames, CDIDeviceIDs}], SkipNodeOperations: [...]}}}} (Go's encoding: a set is an object of empty objects, an empty
 * slice is {@code null}). Written atomically (temporary file, then rename).
 */
final class Checkpoint {

    static final String KIND = "DRACheckpoint";
    static final String API_VERSION = "checkpoint.dra.kubelet.k8s.io/v1";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private Checkpoint() {}

    static void write(Path file, Collection<ClaimInfo> claims) throws IOException {
        ObjectNode data = NODES.objectNode();
        data.put("kind", KIND);
        data.put("apiVersion", API_VERSION);
        ArrayNode entries = data.putArray("Entries");
        for (ClaimInfo claim : claims) {
            ObjectNode entry = entries.addObject();
            entry.put("ClaimUID", claim.claimUid);
            entry.put("ClaimName", claim.claimName);
            entry.put("Namespace", claim.namespace);
            ObjectNode pods = entry.putObject("PodUIDs");
            claim.podUids.forEach(pods::putObject);
            ObjectNode drivers = entry.putObject("DriverState");
            for (Map.Entry<String, List<ClaimInfo.Device>> driver : claim.driverState.entrySet()) {
                ObjectNode state = drivers.putObject(driver.getKey());
                Set<String> skipped = claim.skippedOperations.get(driver.getKey());
                if (skipped != null) {
                    putStrings(state, "SkipNodeOperations", List.copyOf(skipped));
                }
                if (driver.getValue().isEmpty()) {
                    state.putNull("Devices");
                    continue;
                }
                ArrayNode devices = state.putArray("Devices");
                for (ClaimInfo.Device device : driver.getValue()) {
                    ObjectNode node = devices.addObject();
                    node.put("PoolName", device.poolName());
                    node.put("DeviceName", device.deviceName());
                    node.put("ShareID", device.shareId());
                    putStrings(node, "RequestNames", device.requestNames());
                    putStrings(node, "CDIDeviceIDs", device.cdiDeviceIds());
                }
            }
        }
        String dataText = JSON.writeValueAsString(data);
        ObjectNode outer = NODES.objectNode();
        outer.put("Data", dataText);
        outer.put("Checksum", checksum(dataText));
        Path temporary = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.writeString(temporary, JSON.writeValueAsString(outer), StandardCharsets.UTF_8);
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Reads the entries, none of them prepared (a restarted kubelet calls the plugins again, so prepares must be
     * idempotent).
     *
     * @return no entries when the file does not exist
     * @throws IOException when the file is unreadable, not a checkpoint, or its checksum does not match
     */
    static List<ClaimInfo> read(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return List.of();
        }
        try {
            JsonNode outer = JSON.readTree(text);
            String dataText = outer.path("Data").asString();
            if (outer.path("Checksum").asLong(-1) != checksum(dataText)) {
                throw new IOException("checkpoint " + file + " is corrupted: checksum mismatch");
            }
            JsonNode data = JSON.readTree(dataText);
            if (!KIND.equals(data.path("kind").asString()) || !API_VERSION.equals(data.path("apiVersion").asString())) {
                throw new IOException("checkpoint " + file + " has kind " + data.path("kind").asString()
                        + " and apiVersion " + data.path("apiVersion").asString() + ", expected " + KIND + " "
                        + API_VERSION);
            }
            List<ClaimInfo> claims = new ArrayList<>();
            for (JsonNode entry : data.path("Entries")) {
                ClaimInfo claim = new ClaimInfo(entry.path("ClaimUID").asString(),
                        entry.path("ClaimName").asString(), entry.path("Namespace").asString());
                entry.path("PodUIDs").propertyNames().forEach(claim.podUids::add);
                for (var driver : entry.path("DriverState").properties()) {
                    List<ClaimInfo.Device> devices = new ArrayList<>();
                    for (JsonNode device : driver.getValue().path("Devices")) {
                        devices.add(new ClaimInfo.Device(device.path("PoolName").asString(),
                                device.path("DeviceName").asString(),
                                device.path("ShareID").isString() ? device.path("ShareID").asString() : null,
                                strings(device.path("RequestNames")), strings(device.path("CDIDeviceIDs"))));
                    }
                    claim.driverState.put(driver.getKey(), devices);
                    List<String> skipped = strings(driver.getValue().path("SkipNodeOperations"));
                    if (!skipped.isEmpty()) {
                        claim.skippedOperations.put(driver.getKey(), new TreeSet<>(skipped));
                    }
                }
                claims.add(claim);
            }
            return claims;
        } catch (JacksonException e) {
            throw new IOException("checkpoint " + file + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    private static void putStrings(ObjectNode node, String field, List<String> values) {
        if (values.isEmpty()) {
            node.putNull(field);
            return;
        }
        ArrayNode array = node.putArray(field);
        values.forEach(array::add);
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(value -> values.add(value.asString()));
        return values;
    }

    static long checksum(String data) {
        CRC32 crc = new CRC32();
        crc.update(data.getBytes(StandardCharsets.UTF_8));
        return crc.getValue();
    }
}
