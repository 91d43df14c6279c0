package io.kdra.cli;

import picocli.CommandLine.Command;

/** {@code kdra cluster}: the embedded control plane and its parts. */
@Command(name = "cluster", mixinStandardHelpOptions = true, description = "Run the embedded DRA control plane or parts of it.",
        subcommands = {ClusterUpCommand.class, ApiServerCommand.class})
final class ClusterCommand extends CommandGroup {
}
