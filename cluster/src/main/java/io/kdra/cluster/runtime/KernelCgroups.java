package io.kdra.cluster.runtime;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's cgroups as real cgroup v2 groups of this machine, as the kubelet's cgroupfs driver and runc make them: the
 * node's {@code /sys/fs/cgroup} is a group {@code kdra-<pid>-<n>-<node>} at the top of the machine's cgroup v2
 * hierarchy; pods' and containers' groups go below it with their controllers enabled on the way, the kubelet's values
 * go to the controllers' files, and a container's processes (its command and what is exec'd in it) enter its group
 * and take its {@code oom_score_adj} before they exec. The kernel then enforces the limits.
 *
 * <p>This needs a process that may create groups at the top of the hierarchy (root, with {@code /sys/fs/cgroup}
 * mounted read-write, as a kubelet runs) and may set any {@code oom_score_adj}. Only the controllers of
 * {@link #CONTROLLERS} that the hierarchy offers are used; the values of others are not written.
 */
public final class KernelCgroups implements Cgroups {

    /** The controllers the kubelet's values are written to. */
    public static final List<String> CONTROLLERS = List.of("cpu", "hugetlb", "memory");

    private static final Logger LOG = LoggerFactory.getLogger(KernelCgroups.class);
    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");
    private static final Pattern NODE_GROUP = Pattern.compile("kdra-(\\d+)-\\d+-.+");
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    /** Enters the group and sets the score, then becomes the command: its pid stays the container's. */
    private static final String ENTER = "echo $$ > \"$1\" && echo \"$2\" > /proc/self/oom_score_adj || exit 126; "
            + "shift 2; exec \"$@\"";
    private static final long REMOVE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Path hierarchy;
    private final Path root;
    private final List<String> controllers;
    /** Groups whose children have the controllers already. */
    private final Set<Path> enabled = ConcurrentHashMap.newKeySet();

    private KernelCgroups(Path hierarchy, Path root, List<String> controllers) {
        this.hierarchy = hierarchy;
        this.root = root;
        this.controllers = controllers;
    }

    /**
     * The machine's cgroup v2 hierarchy, when this process can create groups in it and it offers every controller of
     * {@link #CONTROLLERS}.
     */
    public static Optional<Path> usableHierarchy() {
        return hierarchy().filter(mount -> Files.isWritable(mount) && controllersOf(mount).containsAll(CONTROLLERS));
    }

    /** Where this machine's cgroup v2 hierarchy is mounted, if it is. */
    public static Optional<Path> hierarchy() {
        try {
            return cgroup2Mount(Files.readAllLines(MOUNTINFO));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Where the cgroup v2 hierarchy is mounted with its top group, from the lines of {@code /proc/self/mountinfo}
     * (the mount point is the fifth field, the file system type the first after the {@code -} separator).
     */
    static Optional<Path> cgroup2Mount(List<String> mountinfo) {
        for (String line : mountinfo) {
            int separator = line.indexOf(" - ");
            if (separator < 0) {
                continue;
            }
            String[] fields = line.substring(0, separator).split(" ");
            String[] source = line.substring(separator + 3).split(" ");
            if (fields.length >= 5 && source.length >= 1 && source[0].equals("cgroup2") && fields[3].equals("/")) {
                return Optional.of(Path.of(unescape(fields[4])));
            }
        }
        return Optional.empty();
    }

    /** mountinfo writes space, tab, newline and backslash in octal. */
    private static String unescape(String field) {
        Matcher escape = Pattern.compile("\\\\([0-7]{3})").matcher(field);
        StringBuilder result = new StringBuilder();
        while (escape.find()) {
            escape.appendReplacement(result,
                    Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(escape.group(1), 8))));
        }
        return escape.appendTail(result).toString();
    }

    private static Set<String> controllersOf(Path group) {
        try {
            return Set.copyOf(Arrays.asList(Files.readString(group.resolve("cgroup.controllers")).strip()
                    .split("\\s+")));
        } catch (IOException e) {
            return Set.of();
        }
    }

    /**
     * The cgroups of one node in the hierarchy mounted at {@code hierarchy}, with the controllers of
     * {@link #CONTROLLERS} it offers. First removes the groups of kdra processes that ended without removing theirs.
     */
    public static KernelCgroups create(Path hierarchy, String nodeName) throws IOException {
        removeOrphans(hierarchy);
        List<String> controllers = new ArrayList<>(CONTROLLERS);
        controllers.retainAll(controllersOf(hierarchy));
        Path root = hierarchy.resolve("kdra-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet()
                + "-" + nodeName);
        KernelCgroups cgroups = new KernelCgroups(hierarchy, root, List.copyOf(controllers));
        cgroups.enableBelow(hierarchy);
        Files.createDirectories(root);
        LOG.debug("node {}: cgroups in {} with controllers {}", nodeName, root, controllers);
        return cgroups;
    }

    private static void removeOrphans(Path hierarchy) {
        try (DirectoryStream<Path> groups = Files.newDirectoryStream(hierarchy, "kdra-*")) {
            for (Path group : groups) {
                Matcher name = NODE_GROUP.matcher(group.getFileName().toString());
                if (name.matches() && ProcessHandle.of(Long.parseLong(name.group(1))).isEmpty()) {
                    LOG.info("removing cgroup {} of an ended kdra process", group);
                    removeTree(group);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not remove the cgroups of ended kdra processes in {}: {}", hierarchy, e.toString());
        }
    }

    /** The controllers whose values this hierarchy holds. */
    public List<String> controllers() {
        return controllers;
    }

    @Override
    public Path root() {
        return root;
    }

    @Override
    public void apply(Path group, LinuxResources resources) throws IOException {
        if (!group.startsWith(root) || group.equals(root)) {
            throw new IllegalArgumentException("cgroup " + group + " is not below the node's " + root);
        }
        for (Path parent = root; !parent.equals(group); parent = parent.resolve(group.getName(parent.getNameCount()))) {
            Files.createDirectories(parent);
            enableBelow(parent);
        }
        Files.createDirectories(group);
        for (Map.Entry<String, String> file : resources.cgroupV2Files().entrySet()) {
            String name = file.getKey();
            String controller = name.substring(0, name.indexOf('.'));
            // a zero weight means none was set: the kernel refuses it
            if (controllers.contains(controller) && !(name.equals("cpu.weight") && file.getValue().equals("0"))) {
                Files.writeString(group.resolve(name), file.getValue());
            }
        }
    }

    /** Makes the controllers available to the group's children, as a group's values need its parent's. */
    private void enableBelow(Path group) throws IOException {
        if (controllers.isEmpty() || enabled.contains(group)) {
            return;
        }
        StringBuilder change = new StringBuilder();
        controllers.forEach(controller -> change.append(change.isEmpty() ? "+" : " +").append(controller));
        Files.writeString(group.resolve("cgroup.subtree_control"), change);
        enabled.add(group);
    }

    @Override
    public void remove(Path group) throws IOException {
        if (!group.startsWith(root)) {
            throw new IllegalArgumentException("cgroup " + group + " is not below the node's " + root);
        }
        enabled.removeIf(path -> path.startsWith(group));
        removeTree(group);
    }

    /** Removes the groups deepest first, killing what still runs in one. */
    private static void removeTree(Path group) throws IOException {
        List<Path> groups;
        try (Stream<Path> paths = Files.walk(group)) {
            groups = paths.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).toList();
        } catch (NoSuchFileException gone) {
            return;
        }
        for (Path each : groups) {
            removeGroup(each);
        }
    }

    private static void removeGroup(Path group) throws IOException {
        long deadline = System.nanoTime() + REMOVE_WAIT_NANOS;
        boolean killed = false;
        while (true) {
            try {
                Files.deleteIfExists(group);
                return;
            } catch (FileSystemException busy) {
                if (System.nanoTime() > deadline) {
                    throw busy;
                }
                if (!killed) {
                    killed = true;
                    Path kill = group.resolve("cgroup.kill");
                    if (Files.exists(kill)) {
                        Files.writeString(kill, "1");
                    }
                }
                // the killed processes leave the group when they exit, a moment later
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
    }

    @Override
    public List<String> placed(ContainerConfig container, List<String> command) throws IOException {
        ContainerConfig.Cgroup cgroup = container.cgroup();
        if (cgroup == null) {
            return command;
        }
        List<String> placed = new ArrayList<>(List.of("/bin/sh", "-c", ENTER, "kdra-enter",
                cgroup.directory().resolve("cgroup.procs").toString(),
                Integer.toString(cgroup.resources().oomScoreAdj()), executable(command.get(0))));
        placed.addAll(command.subList(1, command.size()));
        return placed;
    }

    /**
     * The executable a {@link ProcessBuilder} would start for this command name: as given when it has a slash, else
     * the first in this process's {@code PATH}; a missing or unusable one fails as {@link ProcessBuilder#start()}
     * would, so that the kubelet reports it the same way.
     */
    static String executable(String name) throws IOException {
        if (name.contains("/")) {
            Path path = Path.of(name);
            if (path.isAbsolute()) {
                check(name, path);
            }
            return name;
        }
        String path = System.getenv("PATH");
        Path found = null;
        for (String directory : (path == null ? DEFAULT_PATH : path).split(":", -1)) {
            Path candidate = Path.of(directory.isEmpty() ? "." : directory, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate.toString();
            }
            if (found == null && Files.exists(candidate)) {
                found = candidate;
            }
        }
        if (found != null) {
            check(name, found);
        }
        throw new IOException("Cannot run program \"" + name + "\": error=2, No such file or directory");
    }

    private static void check(String name, Path path) throws IOException {
        if (!Files.exists(path)) {
            throw new IOException("Cannot run program \"" + name + "\": error=2, No such file or directory");
        }
        if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
            throw new IOException("Cannot run program \"" + name + "\": error=13, Permission denied");
        }
    }

    @Override
    public boolean placesProcesses() {
        return true;
    }

    @Override
    public void close() {
        try {
            removeTree(root);
        } catch (IOException e) {
            LOG.warn("could not remove cgroup {}: {}", root, e.toString());
        }
    }

    @Override
    public String toString() {
        return "cgroup v2 " + root + " " + controllers + " of " + hierarchy;
    }
}
