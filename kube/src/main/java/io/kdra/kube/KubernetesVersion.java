package io.kdra.kube;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes minor release, {@code <major>.<minor>}, as emulated versions and feature-gate timelines name them.
 *
 * @param major the major version, 1 for every Kubernetes release so far
 * @param minor the minor version
 */
public record KubernetesVersion(int major, int minor) implements Comparable<KubernetesVersion> {

    private static final Pattern SYNTAX = Pattern.compile("v?(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})");

    public KubernetesVersion {
        if (major < 0 || minor < 0) {
            throw new IllegalArgumentException(
                    "Kubernetes version numbers must not be negative, got " + major + "." + minor);
        }
    }

    /**
     * Parses {@code <major>.<minor>}, e.g. {@code 1.34} (a leading {@code v} is tolerated, as in {@code v1.34}).
     *
     * @throws IllegalArgumentException naming the input when it is not of that form
     */
    public static KubernetesVersion parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("Kubernetes version must be <major>.<minor>, e.g. 1.34, got null");
        }
        Matcher matcher = SYNTAX.matcher(text.trim());
        if (!matcher.matches()) {
            throw new IllegalArgumentException(
                    "Kubernetes version must be <major>.<minor>, e.g. 1.34, got \"" + text + "\"");
        }
        return new KubernetesVersion(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)));
    }

    /** Whether this version is {@code major.minor} or newer. */
    public boolean atLeast(int major, int minor) {
        return compareTo(new KubernetesVersion(major, minor)) >= 0;
    }

    /** The version one minor release before this one (its default minimum compatibility version). */
    public KubernetesVersion previousMinor() {
        if (minor == 0) {
            throw new IllegalStateException("no minor release before " + this);
        }
        return new KubernetesVersion(major, minor - 1);
    }

    @Override
    public int compareTo(KubernetesVersion other) {
        int byMajor = Integer.compare(major, other.major);
        return byMajor != 0 ? byMajor : Integer.compare(minor, other.minor);
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
