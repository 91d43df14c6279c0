package io.kdra.cli;

import picocli.CommandLine.Command;

/** {@code kdra driver}: the DRA test driver, standalone. */
@Command(name = "driver", mixinStandardHelpOptions = true,
        description = "Run the DRA test driver (the Java counterpart of the upstream e2e test driver).",
        subcommands = {KubeletPluginCommand.class})
final class DriverCommand extends CommandGroup {
}
