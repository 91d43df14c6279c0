package io.kdra.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code kdra driver}: the DRA test driver, standalone. */
@Command(name = "driver", mixinStandardHelpOptions = true,
        description = "Run the DRA test driver (the Java counterpart of the upstream e2e test driver).",
        subcommands = {KubeletPluginCommand.class})
final class DriverCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return CommandLine.ExitCode.USAGE;
    }
}
