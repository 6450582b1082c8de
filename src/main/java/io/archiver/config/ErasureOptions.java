package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;

import static org.apache.flink.configuration.ConfigOptions.key;

/** The erase command. Part of the option catalog {@link ArchiverOptions}. */
public final class ErasureOptions {

    public static final ConfigOption<String> ERASE_KEY_HASH_SECRET =
            key("erase.key-hash-secret")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The secret of the keyed hash (HMAC-SHA256) under which the erasure log records the keys erased, so that "
                                    + "the log holds no personal data yet tells, to whoever holds the secret, whether a key was erased; "
                                    + "a ${provider:path:key} reference. Required by erase --apply unless --log-keys plain.");

    private ErasureOptions() {}
}
