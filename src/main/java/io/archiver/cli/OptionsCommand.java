package io.archiver.cli;

import io.archiver.config.OptionsDocumentation;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Prints every configuration option as the Markdown table docs/configuration.md carries. */
@Command(name = "options", mixinStandardHelpOptions = true, description = "Print every configuration option (Markdown).")
final class OptionsCommand implements Runnable {

    @Spec CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().getOut().print(OptionsDocumentation.markdown());
        spec.commandLine().getOut().flush();
    }
}
