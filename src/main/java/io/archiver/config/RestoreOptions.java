package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;

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

    private RestoreOptions() {}
}
