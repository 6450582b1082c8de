package io.archiver.cli;

import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.Map;
import java.util.concurrent.Callable;

import static io.archiver.config.ArchiverOptions.JOB_NAME;

/** Builds and executes the archiver job from the configuration. */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Build and execute the archiver job.")
final class RunCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);
    private static volatile boolean submittedToCluster;

    @Mixin ConfigArgs config;

    @Override
    public Integer call() throws Exception {
        ArchiverConfig cfg = config.load(Map.of());
        LOG.info("Starting {} with configuration {}", cfg.get(JOB_NAME), cfg.redacted());
        StreamExecutionEnvironment env = JobLauncher.environment(cfg);
        submittedToCluster = !JobLauncher.isLocal(env);
        env.execute(cfg.get(JOB_NAME));
        return 0;
    }

    /** True when the job was submitted to a cluster through Flink's client rather than run in this JVM. */
    static boolean submittedToCluster() {
        return submittedToCluster;
    }
}
