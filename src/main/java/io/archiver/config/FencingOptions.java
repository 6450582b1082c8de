package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;

import java.time.Duration;

import static org.apache.flink.configuration.ConfigOptions.key;

/** The lease that keeps two jobs off one archive. Part of the option catalog {@link ArchiverOptions}. */
public final class FencingOptions {

    public static final ConfigOption<Duration> FENCING_LEASE_TIMEOUT =
            key("fencing.lease-timeout")
                    .durationType()
                    .noDefaultValue()
                    .withDescription(
                            "One job per archive: a job holds the lease <sink.path>/_archiver/lease.json and renews it at checkpoints. "
                                    + "A job started on an archive whose lease another job renewed within this time waits for it to expire "
                                    + "and fails if it is renewed meanwhile; a lease not renewed for this long is taken over and its old holder "
                                    + "is fenced (it fails before committing anything more). Default: the larger of 60 s and 3 x checkpoint.interval; "
                                    + "if set, at least 2 x checkpoint.interval.");

    /** Fails on a lease timeout the checkpoints cannot renew in time. */
    static void validate(ArchiverConfig config) {
        if (config.isSet(FENCING_LEASE_TIMEOUT.key()) && config.leaseTimeout().compareTo(config.get(CheckpointOptions.CHECKPOINT_INTERVAL).multipliedBy(2)) < 0) {
            throw new ConfigException(
                    "Invalid value '" + config.leaseTimeout().toMillis() + " ms' for '" + FENCING_LEASE_TIMEOUT.key()
                            + "': it must be at least twice '" + CheckpointOptions.CHECKPOINT_INTERVAL.key() + "' (" + config.get(CheckpointOptions.CHECKPOINT_INTERVAL).toMillis()
                            + " ms), since the lease is renewed at every checkpoint; raise it or checkpoint more often.");
        }
    }

    private FencingOptions() {}
}
