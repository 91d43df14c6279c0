package io.kdra.cluster.runtime.cdi;

import io.kdra.cluster.runtime.cdi.SpecFile.Edits;
import io.kdra.cluster.runtime.cdi.SpecFile.Loaded;
import io.kdra.plugin.cdi.DeviceNode;
import io.kdra.plugin.cdi.Mount;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CDI specs of one directory (a node's {@code /var/run/cdi}), resolved as the CDI reference library's cache does.
 *
 * <p>Every resolution looks at the directory again, so a spec a driver wrote just before the container starts is
 * found; only files whose identity, size or modification time changed are parsed again. Files ending in {@code .json}
 * or {@code .yaml} are specs, subdirectories are skipped. A file that cannot be read or is not a valid spec is left
 * out with an error for that file (see {@link #errors()}); the other files stay usable. A device defined by two files
 * is a conflict: neither definition is used and both files get an error, so requesting that device fails.
 */
public final class CdiRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(CdiRegistry.class);

    private final Path directory;
    private final Map<Path, CachedFile> files = new HashMap<>();
    private Map<String, Device> devices = Map.of();
    private Map<Path, List<String>> errors = Map.of();

    /**
     * @param directory the directory drivers write spec files into; need not exist yet
     */
    public CdiRegistry(Path directory) {
        this.directory = directory.toAbsolutePath();
    }

    /** The directory the specs are read from. */
    public Path directory() {
        return directory;
    }

    /**
     * Resolves device IDs, {@code <vendor>/<class>=<name>}, and merges their edits. A device requested twice counts
     * once.
     *
     * @throws UnresolvableCdiDevicesException naming every device that no valid spec defines
     */
    public synchronized CdiEdits resolve(List<String> deviceIds) throws UnresolvableCdiDevicesException {
        if (deviceIds.isEmpty()) {
            return CdiEdits.NONE;
        }
        refresh();
        List<String> requested = List.copyOf(new LinkedHashSet<>(deviceIds));
        List<String> unresolved = requested.stream().filter(id -> !devices.containsKey(id)).toList();
        if (!unresolved.isEmpty()) {
            throw new UnresolvableCdiDevicesException(unresolved);
        }
        List<String> env = new ArrayList<>();
        Map<String, DeviceNode> deviceNodes = new LinkedHashMap<>();
        Map<String, Mount> mounts = new LinkedHashMap<>();
        List<Hook> hooks = new ArrayList<>();
        Set<Loaded> specsApplied = Collections.newSetFromMap(new IdentityHashMap<>());
        for (String id : requested) {
            Device device = devices.get(id);
            if (specsApplied.add(device.spec())) {
                append(device.spec().specEdits(), env, deviceNodes, mounts, hooks);
            }
            append(device.edits(), env, deviceNodes, mounts, hooks);
        }
        List<Mount> sortedMounts = new ArrayList<>(mounts.values());
        // parents before children, as the reference library orders mounts (a stable sort by path depth)
        sortedMounts.sort(Comparator.comparingInt(mount -> depth(mount.containerPath())));
        return new CdiEdits(requested, env, List.copyOf(deviceNodes.values()), sortedMounts, hooks);
    }

    /**
     * The problems found when the directory was last read, by file: unreadable or invalid specs and conflicting
     * device definitions.
     */
    public synchronized Map<Path, List<String>> errors() {
        return errors;
    }

    /** Reads the directory again now (resolution does it by itself); returns {@link #errors()}. */
    public synchronized Map<Path, List<String>> refresh() {
        Map<Path, FileVersion> present = list();
        files.keySet().retainAll(present.keySet());
        Map<String, Device> found = new HashMap<>();
        Set<String> conflicts = new HashSet<>();
        Map<Path, List<String>> problems = new TreeMap<>();
        for (Map.Entry<Path, FileVersion> entry : present.entrySet()) {
            Path path = entry.getKey();
            CachedFile file = files.get(path);
            if (file == null || !file.version().equals(entry.getValue())) {
                file = load(path, entry.getValue());
                files.put(path, file);
            }
            if (file.error() != null) {
                problems.computeIfAbsent(path, p -> new ArrayList<>()).add(file.error());
                continue;
            }
            Loaded spec = file.spec();
            for (Map.Entry<String, Edits> device : spec.devices().entrySet()) {
                String id = spec.kind() + "=" + device.getKey();
                Device other = found.putIfAbsent(id, new Device(spec, device.getValue()));
                if (other != null) {
                    String conflict = "conflicting device \"" + id + "\" (specs \"" + path + "\", \""
                            + other.spec().path() + "\")";
                    problems.computeIfAbsent(path, p -> new ArrayList<>()).add(conflict);
                    problems.computeIfAbsent(other.spec().path(), p -> new ArrayList<>()).add(conflict);
                    conflicts.add(id);
                }
            }
        }
        found.keySet().removeAll(conflicts);
        devices = found;
        problems.replaceAll((path, list) -> List.copyOf(list));
        errors = Collections.unmodifiableMap(problems);
        return errors;
    }

    private Map<Path, FileVersion> list() {
        Map<Path, FileVersion> present = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path path : entries) {
                String name = path.getFileName().toString();
                if (!name.endsWith(".json") && !name.endsWith(".yaml")) {
                    continue;
                }
                try {
                    BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
                    if (!attributes.isDirectory()) {
                        present.put(path, new FileVersion(attributes.fileKey(), attributes.size(),
                                attributes.lastModifiedTime()));
                    }
                } catch (NoSuchFileException removedMeanwhile) {
                    // a driver removed it between listing and reading: it is gone
                }
            }
        } catch (NoSuchFileException noDirectoryYet) {
            return present;
        } catch (IOException e) {
            LOG.warn("cannot list CDI directory {}: {}", directory, e.toString());
        }
        return present;
    }

    private static CachedFile load(Path path, FileVersion version) {
        try {
            return new CachedFile(version, SpecFile.load(path, Files.readAllBytes(path)), null);
        } catch (IOException e) {
            return failed(version, "failed to read CDI Spec \"" + path + "\": " + e);
        } catch (IllegalArgumentException e) {
            return failed(version, e.getMessage());
        }
    }

    private static CachedFile failed(FileVersion version, String error) {
        LOG.warn("{}", error);
        return new CachedFile(version, null, error);
    }

    private static void append(Edits edits, List<String> env, Map<String, DeviceNode> deviceNodes,
            Map<String, Mount> mounts, List<Hook> hooks) {
        env.addAll(edits.env());
        for (DeviceNode node : edits.deviceNodes()) {
            // a later node for the same path replaces the earlier one and moves to the end, as the OCI editor does
            deviceNodes.remove(node.path());
            deviceNodes.put(node.path(), node);
        }
        for (Mount mount : edits.mounts()) {
            mounts.remove(mount.containerPath());
            mounts.put(mount.containerPath(), mount);
        }
        hooks.addAll(edits.hooks());
    }

    private static int depth(String containerPath) {
        return (int) Path.of(containerPath).normalize().toString().chars().filter(c -> c == '/').count();
    }

    /** What identifies one content of a file: a rewrite by rename changes the file key, one in place the time. */
    private record FileVersion(Object fileKey, long size, FileTime modified) {}

    private record CachedFile(FileVersion version, Loaded spec, String error) {}

    private record Device(Loaded spec, Edits edits) {}
}
