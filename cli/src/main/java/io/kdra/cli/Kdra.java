package io.kdra.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code kdra} command: DRA end-to-end testing. */
@Command(
        name = "kdra",
        mixinStandardHelpOptions = true,
        versionProvider = KdraVersion.class,
        description = "Kubernetes Dynamic Resource Allocation end-to-end testing.",
        subcommands = {CommandLine.HelpCommand.class, ClusterCommand.class, DriverCommand.class, BenchCommand.class})
public final class Kdra extends CommandGroup {

    public static void main(String[] args) {
        System.exit(new CommandLine(new Kdra()).execute(args));
    }
}
