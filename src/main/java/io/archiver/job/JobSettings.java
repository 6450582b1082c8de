package io.archiver.job;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.Mode;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.CheckpointingMode;

import static io.archiver.config.CheckpointOptions.*;
import static io.archiver.config.JobOptions.*;

/**
 * The Flink settings of the archiver job, derived from its configuration: runtime mode, exactly-once
 * checkpoints retained on cancellation, restart strategy, parallelism. {@code flink.*} settings are
 * applied last, so an operator can override any of them.
 */
public final class JobSettings {

    private JobSettings() {}

    public static Configuration of(ArchiverConfig config) {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.NAME, config.get(JOB_NAME));
        conf.set(PipelineOptions.OBJECT_REUSE, true);
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        if (config.get(PARALLELISM) > 0) {
            conf.set(CoreOptions.DEFAULT_PARALLELISM, config.get(PARALLELISM));
        }
        if (config.get(MODE) == Mode.BATCH) {
            conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        } else {
            conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
            conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, config.get(CHECKPOINT_INTERVAL));
            conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
            conf.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, config.get(CHECKPOINT_TIMEOUT));
            conf.set(
                    CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                    ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
            config.getOptional(CHECKPOINT_DIR).ifPresent(dir -> {
                conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
                conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir);
            });
        }
        switch (config.get(RESTART_STRATEGY)) {
            case NONE:
                conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
                break;
            case FIXED_DELAY:
                conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
                conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, config.get(RESTART_ATTEMPTS));
                conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, config.get(RESTART_DELAY));
                break;
            default:
                conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
                conf.set(
                        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
                        config.get(RESTART_DELAY));
        }
        conf.addAll(config.flinkSettings());
        return conf;
    }
}
