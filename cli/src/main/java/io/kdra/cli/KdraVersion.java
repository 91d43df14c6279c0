package io.kdra.cli;

import picocli.CommandLine.IVersionProvider;

/** Reports the version of the kdra build from the jar manifest. */
final class KdraVersion implements IVersionProvider {

    @Override
    public String[] getVersion() {
        String version = Kdra.class.getPackage().getImplementationVersion();
        return new String[] {"kdra " + (version == null ? "(development build)" : version)};
    }
}
