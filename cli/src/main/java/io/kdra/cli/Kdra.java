package io.kdra.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/** The {@code kdra} command: DRA end-to-end testing. */
@Command(
        name = "kdra",
        mixinStandardHelpOptions = true,
        versionProvider = KdraVersion.class,
        description = "Kubernetes Dynamic Resource Allocation end-to-end testing.",
        subcommands = {CommandLine.HelpCommand.class, ClusterCommand.class, E2eCommand.class, DriverCommand.class,
                BenchCommand.class})
public final class Kdra extends CommandGroup {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line with kdra's error reporting: a bad flag is one line naming it and pointing to the command's
     * help (exit code 2, picocli's usage code), a failure one line with what went wrong (exit code 1).
     */
    static CommandLine commandLine() {
        return new CommandLine(new Kdra())
                .setParameterExceptionHandler(Kdra::reportBadUsage)
                .setExecutionExceptionHandler(Kdra::reportFailure);
    }

    private static int reportBadUsage(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        err.println(e.getMessage() + " (see '" + command.getCommandSpec().qualifiedName() + " --help')");
        UnmatchedArgumentException.printSuggestions(e, err);
        err.flush();
        return command.getCommandSpec().exitCodeOnInvalidInput();
    }

    private static int reportFailure(Exception e, CommandLine command, ParseResult parsed) {
        PrintWriter err = command.getErr();
        err.println(command.getCommandSpec().qualifiedName() + ": " + e
                + (Verbosity.isOn() ? "" : " (run it with -v for the components' logs and the stack trace)"));
        if (Verbosity.isOn()) {
            e.printStackTrace(err);
        }
        err.flush();
        return command.getCommandSpec().exitCodeOnExecutionException();
    }
}
