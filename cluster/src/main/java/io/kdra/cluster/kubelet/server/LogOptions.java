package io.kdra.cluster.kubelet.server;

import java.time.Instant;

/**
 * The options of a log request, as {@code PodLogOptions} carries them to the kubelet.
 *
 * @param follow keep the stream open and send new output until the container stops
 * @param previous the log of the container's previous, terminated instance
 * @param tailLines the number of lines from the end to start with; negative means all
 * @param limitBytes stop after this many bytes; negative means no limit
 * @param sinceTime only lines written at or after this time; null means all
 * @param timestamps prefix every line with its RFC 3339 time
 */
public record LogOptions(boolean follow, boolean previous, long tailLines, long limitBytes, Instant sinceTime,
        boolean timestamps) {

    public static final LogOptions ALL = new LogOptions(false, false, -1, -1, null, false);
}
