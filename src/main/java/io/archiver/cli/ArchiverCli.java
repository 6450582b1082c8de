package io.archiver.cli;

import io.archiver.config.UserFacingError;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of kafka-s3-archiver. {@code run} builds and executes the job (on the cluster when submitted
 * with {@code flink run}, in a local Flink when started with {@code java}); {@code local} runs it on an
 * embedded Kafka + S3 stack; {@code options} prints every configuration option.
 */
@Command(
        name = "kafka-s3-archiver",
        mixinStandardHelpOptions = true,
        versionProvider = ArchiverCli.Version.class,
        description = "Archives Kafka topics to S3 exactly once, on Apache Flink.",
        subcommands = {RunCommand.class, AuditCommand.class, RepairCommand.class, CleanupCommand.class, EraseCommand.class, RestoreCommand.class, TableCommand.class, OptionsCommand.class})
public final class ArchiverCli {

    /** Exit code of a configuration or precondition error. */
    static final int CONFIG_ERROR = 2;

    /** The version the job jar's manifest names (the build's project version); a build from classes says so. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = ArchiverCli.class.getPackage().getImplementationVersion();
            return new String[] {"kafka-s3-archiver " + (version == null ? "(development build, not from the job jar)" : version)};
        }
    }

    public static void main(String[] args) {
        DefaultLogging.useUnlessConfigured();
        int code = commandLine().execute(args);
        // A job that ran in this JVM leaves non-daemon threads behind (Flink's S3 client pool): end the
        // JVM. Under `flink run` the client (or the JobManager, in application mode) owns the JVM.
        if (code != 0 || !RunCommand.submittedToCluster()) {
            System.exit(code);
        }
    }

    /** The command line of the archiver, for embedding and tests. */
    public static CommandLine commandLine() {
        return withErrorHandling(new ArchiverCli());
    }

    /** The command line of {@code command}, printing {@link UserFacingError}s as messages with exit code 2. */
    public static CommandLine withErrorHandling(Object command) {
        return new CommandLine(command)
                .setExecutionExceptionHandler(
                        (e, cmd, parseResult) -> {
                            if (e instanceof UserFacingError) {
                                cmd.getErr().println("error: " + e.getMessage());
                                return CONFIG_ERROR;
                            }
                            throw e;
                        });
    }
}
