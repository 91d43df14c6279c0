package io.kdra.cluster.runtime;

import io.kdra.cluster.runtime.ContainerConfig.Mount;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The local runtimes' stand-in for a container's mount namespace: a command exec'd in a container names paths as the
 * container sees them ({@code mv /cdi/a.tmp /cdi/a}, {@code sh -c "base64 -d >'/cdi/a.tmp'"}), and runs as a process
 * of this machine, so every path below a mount point is rewritten to the node's directory. A path starts an argument
 * or follows a blank, a quote, {@code =}, {@code :} or a redirection, and its mount point is followed by {@code /}, the
 * end, a blank or a quote.
 */
final class MountedPaths {

    private MountedPaths() {}

    static List<String> rewrite(List<String> command, ContainerConfig container) {
        if (container.mounts().isEmpty()) {
            return command;
        }
        List<Mount> longestFirst = container.mounts().stream()
                .filter(mount -> !mount.containerPath().equals("/"))
                .sorted(Comparator.comparingInt((Mount mount) -> mount.containerPath().length()).reversed())
                .toList();
        if (longestFirst.isEmpty()) {
            return command;
        }
        Pattern mounted = Pattern.compile("(?<![^\\s'\"=:<>])(" + longestFirst.stream()
                .map(mount -> Pattern.quote(stripSlash(mount.containerPath())))
                .collect(Collectors.joining("|")) + ")(?=/|$|[\\s'\"])");
        return command.stream().map(argument -> {
            Matcher matcher = mounted.matcher(argument);
            return matcher.replaceAll(match -> Matcher.quoteReplacement(
                    container.resolve(match.group(1)).toString()));
        }).toList();
    }

    private static String stripSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
