package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;

import java.time.Duration;

import static org.apache.flink.configuration.ConfigOptions.key;

/** The restore command. Part of the option catalog {@link ArchiverOptions}. */
public final class RestoreOptions {

    public static final ConfigOption<String> RESTORE_LEDGER_TOPIC =
            key("restore.ledger-topic")
                    .stringType()
                    .defaultValue("kafka-s3-archiver-restores")
                    .withDescription(
                            "Compacted topic of the cluster restored into where restore records, in the same Kafka transaction as the "
                                    + "records, what each run wrote; a restore started again goes on from it (created when missing).");

    public static final ConfigOption<Duration> RESTORE_CHECKPOINT_INTERVAL =
            key("restore.checkpoint-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription(
                            "Exactly-once checkpoint interval of the restore job, apart from checkpoint.interval (the archiving job's): "
                                    + "each checkpoint commits a Kafka transaction of about this long (the last one is committed as soon as "
                                    + "every file is read). At most half the brokers' transaction.max.timeout.ms.");

    /** Fails on a restore checkpoint interval under 10 ms. */
    static void validate(ArchiverConfig config) {
        config.positive(RESTORE_CHECKPOINT_INTERVAL, config.get(RESTORE_CHECKPOINT_INTERVAL).toMillis() >= 10, "at least 10 ms");
    }

    private RestoreOptions() {}
}
