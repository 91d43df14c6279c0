package io.kdra.framework;

import java.util.Set;

/** Lets tests in other packages ask for the requirements {@link FrameworkExtension} would pick. */
public final class FrameworkExtensionAccess {

    private FrameworkExtensionAccess() {
    }

    public static ClusterRequirements requirements(Set<String> specTags) {
        return FrameworkExtension.requirements(specTags);
    }
}
