package io.archiver.cli;

import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;

import static io.archiver.config.JobOptions.JOB_NAME;

/**
 * Builds and executes the archiver job from the configuration: submitted to the cluster under {@code flink
 * run}, else run in this JVM (a local Flink), telling the terminal the job's id, where its web UI is and when
 * it ends; a job run here gives the archive's lease up when it ends, so the next job need not wait for it.
 */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Build and execute the archiver job.")
final class RunCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);
    private static volatile boolean submittedToCluster;

    @Mixin ConfigArgs config;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter terminal = spec.commandLine().getErr();
        ArchiverConfig cfg = config.load(Map.of());
        LOG.info("Starting {} with configuration {}", cfg.get(JOB_NAME), cfg.redacted());
        JobLauncher.Launch launch = JobLauncher.launch(cfg, notice -> {
            terminal.println(notice);
            terminal.flush();
        });
        StreamExecutionEnvironment env = launch.environment();
        submittedToCluster = !JobLauncher.isLocal(env);
        if (submittedToCluster) {
            env.execute(cfg.get(JOB_NAME));
            return 0;
        }
        JobClient job = env.executeAsync(cfg.get(JOB_NAME));
        terminal.printf("Job '%s' (%s) runs in this JVM, writing to %s; %s%n",
                cfg.get(JOB_NAME), job.getJobID(), cfg.sinkPath(), webUi(env));
        terminal.flush();
        try {
            JobExecutionResult result = job.getJobExecutionResult().get();
            terminal.printf("Job %s finished in %d s.%n", job.getJobID(), result.getNetRuntime() / 1000);
            return 0;
        } finally {
            launch.lease().release();
        }
    }

    private static String webUi(StreamExecutionEnvironment env) {
        Map<String, String> conf = env.getConfiguration().toMap();
        String port = conf.get("rest.bind-port");
        if (port == null || port.equals("0") || port.contains("-")) {
            return "no web UI (set flink.rest.bind-port to get one).";
        }
        return "web UI at http://" + conf.getOrDefault("rest.address", "localhost") + ":" + port + " .";
    }

    /** True when the job was submitted to a cluster through Flink's client rather than run in this JVM. */
    static boolean submittedToCluster() {
        return submittedToCluster;
    }
}
