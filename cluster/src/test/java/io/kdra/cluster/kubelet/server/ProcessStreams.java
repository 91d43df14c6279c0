package io.kdra.cluster.kubelet.server;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Containers of one pod ({@code ns/pod}) backed by real processes: {@code main} has the log "one two three" (lines)
 * and runs exec commands; {@code follower}'s followed log is a running shell that prints "first", then echoes the
 * line written to its stdin and exits. Its ports are the loopback's.
 */
final class ProcessStreams implements ContainerStreams {

    final List<LogOptions> logRequests = new CopyOnWriteArrayList<>();
    final List<Process> processes = new CopyOnWriteArrayList<>();

    @Override
    public InputStream logs(PodContainer target, LogOptions options)
            throws ContainerNotFoundException, ContainerUnavailableException, IOException {
        check(target);
        logRequests.add(options);
        if (options.previous()) {
            throw new ContainerUnavailableException(String.format(
                    "previous terminated container \"%s\" in pod \"%s\" not found", target.container(), target.pod()));
        }
        if (target.container().equals("follower")) {
            Process follower = start(List.of("sh", "-c", "echo first; read line; echo \"$line\""));
            // as a runtime stops following when the reader closes the log
            return new FilterInputStream(follower.getInputStream()) {
                @Override
                public void close() throws IOException {
                    follower.destroyForcibly();
                    super.close();
                }
            };
        }
        String tail = options.tailLines() >= 0 ? " | tail -n " + options.tailLines() : "";
        return start(List.of("sh", "-c", "printf 'one\\ntwo\\nthree\\n'" + tail)).getInputStream();
    }

    @Override
    public Process exec(PodContainer target, List<String> command) throws ContainerNotFoundException, IOException {
        check(target);
        return start(command);
    }

    @Override
    public InetSocketAddress portAddress(String namespace, String pod, int port) throws ContainerNotFoundException {
        check(new PodContainer(namespace, pod, "main"));
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    /** @return the last process started */
    Process last() {
        return processes.get(processes.size() - 1);
    }

    void destroyAll() {
        processes.forEach(Process::destroyForcibly);
        processes.clear();
    }

    private Process start(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).start();
        processes.add(process);
        return process;
    }

    private static void check(PodContainer target) throws ContainerNotFoundException {
        if (!target.namespace().equals("ns") || !target.pod().equals("pod")) {
            throw new ContainerNotFoundException(String.format("pod \"%s\" does not exist", target.pod()));
        }
        if (!List.of("main", "follower").contains(target.container())) {
            throw new ContainerNotFoundException(String.format("container \"%s\" not found in pod \"%s\"",
                    target.container(), target.pod()));
        }
    }
}
