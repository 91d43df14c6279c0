package io.kdra.cli;

import picocli.CommandLine.Option;

/**
 * {@code -v}, {@code --verbose} of the long-running commands: the components' INFO logs on stderr too. Without it they
 * log only warnings and errors ({@code simplelogger.properties}), so that the terminal shows the command's own lines.
 */
final class Verbosity {

    /** slf4j-simple's default level; it reads it once, when the first logger is made, which is after parsing. */
    static final String LOG_LEVEL_PROPERTY = "org.slf4j.simpleLogger.defaultLogLevel";

    @Option(names = {"-v", "--verbose"},
            description = "Also log what the components do (INFO, on stderr). Without it only their warnings and"
                    + " errors are logged.")
    void verbose(boolean verbose) {
        if (verbose && System.getProperty(LOG_LEVEL_PROPERTY) == null) {
            System.setProperty(LOG_LEVEL_PROPERTY, "info");
        }
    }

    /** Whether the logs say more than warnings, by {@code -v} or by the system property. */
    static boolean isOn() {
        String level = System.getProperty(LOG_LEVEL_PROPERTY);
        return level != null && !level.equalsIgnoreCase("warn") && !level.equalsIgnoreCase("error")
                && !level.equalsIgnoreCase("off");
    }
}
