package io.archiver.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

class RestoreCommandTest {

    @Test
    void dryRunAndVerifyTogetherAreRefusedBeforeAnythingIsRead() {
        StringWriter err = new StringWriter();
        CommandLine cli = ArchiverCli.commandLine();
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute("restore", "--config", "/nonexistent/archiver.yaml", "--dry-run", "--verify");
        assertThat(exit).isEqualTo(ArchiverCli.CONFIG_ERROR);
        assertThat(err.toString()).contains("--dry-run and --verify cannot be used together").doesNotContain("nonexistent");
    }
}
