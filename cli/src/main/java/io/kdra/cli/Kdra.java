package io.kdra.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The {@code kdra} command: DRA end-to-end testing. */
@Command(
        name = "kdra",
        mixinStandardHelpOptions = true,
        versionProvider = KdraVersion.class,
        description = "Kubernetes Dynamic Resource Allocation end-to-end testing.",
        subcommands = {CommandLine.HelpCommand.class, ClusterCommand.class, DriverCommand.class})
public final class Kdra implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new Kdra()).execute(args));
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return CommandLine.ExitCode.USAGE;
    }
}
