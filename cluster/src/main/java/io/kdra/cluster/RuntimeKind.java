package io.kdra.cluster;

import java.util.Locale;

/** Which container runtime the simulated kubelets drive. */
public enum RuntimeKind {
    /** Containers with a command run as local processes of the invoking user; no isolation. */
    PROCESS,
    /** Containers are Running at once and run nothing; for scale runs. */
    NOOP;

    /** @param name {@code process} or {@code noop}, as {@code kdra cluster up --runtime} takes it */
    public static RuntimeKind named(String name) {
        for (RuntimeKind kind : values()) {
            if (kind.cliName().equals(name.toLowerCase(Locale.ROOT))) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown runtime \"" + name + "\"; use process or noop");
    }

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
