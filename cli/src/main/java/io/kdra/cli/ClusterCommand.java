package io.kdra.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code kdra cluster}: the embedded control plane and its parts. */
@Command(name = "cluster", mixinStandardHelpOptions = true, description = "Run the embedded DRA control plane or parts of it.",
        subcommands = {ApiServerCommand.class})
final class ClusterCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return CommandLine.ExitCode.USAGE;
    }
}
