package io.archiver.testutils;

import io.archiver.cli.ArchiverCli;
import io.archiver.config.ArchiverConfig;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a CLI command in this JVM with a job's settings as -D overrides and the S3 settings as flink.*. */
public final class Cli {

    private Cli() {}

    /** Exit code and everything printed (standard output and error together). */
    public record Result(int code, String out) {}

    public static Result run(ArchiverConfig config, String... args) {
        StringWriter out = new StringWriter();
        return new Result(execute(config, out, args), out.toString());
    }

    /** Starts the command on another thread; the jobs it starts go to the MiniCluster of the calling thread's test class. */
    public static Running start(ArchiverConfig config, String... args) {
        StringWriter out = new StringWriter();
        return new Running(out, CompletableFuture.supplyAsync(SharedStack.get().withThisThreadsCluster(() -> execute(config, out, args))));
    }

    /** A command started by {@link #start}: what it printed so far, and its result once it ends. */
    public static final class Running {

        private final StringWriter out;
        private final CompletableFuture<Integer> code;

        private Running(StringWriter out, CompletableFuture<Integer> code) {
            this.out = out;
            this.code = code;
        }

        /** Everything printed so far. */
        public String out() {
            return out.toString();
        }

        /** Waits at most {@code timeout} for the command to end. */
        public Result await(Duration timeout) throws Exception {
            return new Result(code.get(timeout.toMillis(), TimeUnit.MILLISECONDS), out.toString());
        }
    }

    private static int execute(ArchiverConfig config, StringWriter out, String... args) {
        List<String> argv = new ArrayList<>(List.of(args));
        config.toMap().forEach((k, v) -> argv.add("-D" + k + "=" + v));
        SharedStack.get().s3().flinkSettings().forEach((k, v) -> argv.add("-Dflink." + k + "=" + v));
        CommandLine cmd = ArchiverCli.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(out, true));
        return cmd.execute(argv.toArray(new String[0]));
    }
}
