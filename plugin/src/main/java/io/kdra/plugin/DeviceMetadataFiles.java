package io.kdra.plugin;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.plugin.cdi.CdiDevice;
import io.kdra.plugin.cdi.CdiSpec;
import io.kdra.plugin.cdi.ContainerEdits;
import io.kdra.plugin.cdi.FileOperations;
import io.kdra.plugin.cdi.LocalFileOperations;
import io.kdra.plugin.cdi.Mount;
import io.kdra.plugin.metadata.DeviceMetadata;
import io.kdra.plugin.metadata.DeviceMetadataCodec;
import io.kdra.plugin.metadata.MetadataPaths;
import io.kdra.plugin.metadata.MetadataVersion;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The device metadata files of prepared claims, as upstream's kubelet plugin helper writes them: per request of a
 * claim one metadata file {@code <plugin data dir>/dra-device-metadata/<namespace>_<claim>/<request>/metadata.json},
 * and one CDI spec {@code <driver>_metadata_<claim UID>_<request>.json} of kind {@code <driver>/metadata} whose device
 * {@code <claim UID>_<request>} bind-mounts that file read-only at its {@link MetadataPaths} location. The CDI device
 * is added to the request's devices, so exactly the containers that use the request get the file.
 */
final class DeviceMetadataFiles {

    static final String METADATA_SUB_DIR = "dra-device-metadata";
    static final String CDI_CLASS = "metadata";
    /** The CDI spec version upstream writes these specs with. */
    static final String CDI_VERSION = "0.5.0";
    private static final String FILE_NAME = "metadata.json";
    private static final String POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name";

    private final String driverName;
    private final Path root;
    private final FileOperations cdiFiles;
    private final List<MetadataVersion> versions;

    /**
     * @param pluginDataDirectory the driver's data directory; the metadata files go below it
     * @param cdiFiles where the CDI specs go: the directory the container runtime reads
     * @param versions the versions each file holds, in this order
     */
    DeviceMetadataFiles(String driverName, Path pluginDataDirectory, FileOperations cdiFiles,
            List<MetadataVersion> versions) {
        this.driverName = driverName;
        this.root = pluginDataDirectory.toAbsolutePath().resolve(METADATA_SUB_DIR);
        this.cdiFiles = cdiFiles;
        this.versions = List.copyOf(versions);
    }

    /**
     * Writes the files of every request the devices serve and returns the devices with the CDI device of each of their
     * requests added. Devices that name no request get no metadata.
     */
    List<PreparedDevice> write(ResourceClaim claim, List<PreparedDevice> devices) throws IOException {
        Map<String, List<PreparedDevice>> byRequest = new LinkedHashMap<>();
        for (PreparedDevice device : devices) {
            for (String request : device.requestNames()) {
                byRequest.computeIfAbsent(request, name -> new ArrayList<>()).add(device);
            }
        }
        String namespace = claim.getMetadata().getNamespace();
        String name = claim.getMetadata().getName();
        String uid = claim.getMetadata().getUid();
        Map<String, String> annotations = claim.getMetadata().getAnnotations();
        String podClaimName = annotations == null ? null : annotations.get(POD_CLAIM_NAME_ANNOTATION);
        if (podClaimName != null && podClaimName.isEmpty()) {
            podClaimName = null;
        }
        Map<String, String> cdiDeviceIds = new LinkedHashMap<>();
        for (Map.Entry<String, List<PreparedDevice>> request : byRequest.entrySet()) {
            String baseRequest = baseRequest(request.getKey());
            DeviceMetadata metadata = new DeviceMetadata(name, namespace, uid, 1, podClaimName,
                    List.of(new DeviceMetadata.Request(request.getKey(), request.getValue().stream()
                            .map(this::entry).toList())));
            Path file = metadataFile(namespace, name, baseRequest);
            try {
                // written beside and renamed into place: readers in containers never see a half-written file
                new LocalFileOperations(file.getParent())
                        .write(FILE_NAME, DeviceMetadataCodec.encode(metadata, versions));
            } catch (IOException e) {
                throw new IOException("write device metadata for request " + request.getKey() + ": " + e, e);
            }
            String containerPath = podClaimName != null
                    ? MetadataPaths.resourceClaimTemplateFilePath(driverName, podClaimName, baseRequest)
                    : MetadataPaths.resourceClaimFilePath(driverName, name, baseRequest);
            String cdiDevice = uid + "_" + baseRequest;
            CdiSpec spec = CdiSpec.of(CDI_VERSION, driverName + "/" + CDI_CLASS, List.of(new CdiDevice(cdiDevice,
                    new ContainerEdits(List.of(), List.of(), List.of(new Mount(file.toString(), containerPath, null,
                            List.of("ro", "bind")))))));
            try {
                cdiFiles.write(cdiFileName(uid, baseRequest), spec.toJson());
            } catch (IOException e) {
                throw new IOException("write CDI spec for device metadata of request " + request.getKey() + ": " + e,
                        e);
            }
            cdiDeviceIds.put(baseRequest, spec.deviceId(cdiDevice).toString());
        }
        List<PreparedDevice> withMetadata = new ArrayList<>();
        for (PreparedDevice device : devices) {
            Set<String> ids = new LinkedHashSet<>();
            device.requestNames().forEach(request -> ids.add(cdiDeviceIds.get(baseRequest(request))));
            withMetadata.add(ids.isEmpty() ? device : device.withMoreCdiDeviceIds(List.copyOf(ids)));
        }
        return withMetadata;
    }

    /**
     * Removes a claim's files; the request directories on disk say which CDI specs there are, so this works after a
     * restart too. Nothing to remove is fine.
     */
    void remove(ClaimRef claim) throws IOException {
        Path claimDirectory = root.resolve(claim.namespace() + "_" + claim.name());
        List<Path> requests = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(claimDirectory)) {
            entries.forEach(requests::add);
        } catch (NoSuchFileException nothingWritten) {
            return;
        }
        for (Path request : requests) {
            cdiFiles.remove(cdiFileName(claim.uid(), request.getFileName().toString()));
        }
        try (Stream<Path> paths = Files.walk(claimDirectory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** The host path of a request's metadata file. */
    Path metadataFile(String namespace, String claimName, String baseRequest) {
        return root.resolve(namespace + "_" + claimName).resolve(baseRequest).resolve(FILE_NAME);
    }

    /** {@code <driver>_metadata_<claim UID>_<request>.json}. */
    String cdiFileName(String claimUid, String baseRequest) {
        return driverName + "_" + CDI_CLASS + "_" + claimUid + "_" + baseRequest + ".json";
    }

    private DeviceMetadata.Device entry(PreparedDevice device) {
        PreparedDevice.Metadata metadata = device.metadata();
        return new DeviceMetadata.Device(driverName, device.poolName(), device.deviceName(),
                metadata == null ? Map.of() : metadata.attributes(), metadata == null ? null : metadata.networkData());
    }

    private static String baseRequest(String request) {
        int slash = request.indexOf('/');
        return slash < 0 ? request : request.substring(0, slash);
    }
}
