package io.kdra.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Commands that only group others print their usage, listing the subcommands, when run alone. */
class CommandGroupTest {

    @ParameterizedTest(name = "kdra {0}")
    @CsvSource({"'', 'Usage: kdra ', cluster", "cluster, 'Usage: kdra cluster ', apiserver",
            "cluster, 'Usage: kdra cluster ', up", "driver, 'Usage: kdra driver ', kubelet-plugin"})
    void runAlonePrintsTheUsageWithTheSubcommands(String args, String usage, String subcommand) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Kdra.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args.isEmpty() ? new String[0] : new String[] {args});

        assertThat(code).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(out.toString()).startsWith(usage).contains(subcommand);
        assertThat(err.toString()).isEmpty();
    }
}
