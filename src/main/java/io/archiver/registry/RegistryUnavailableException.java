package io.archiver.registry;

import java.io.IOException;

/**
 * No registry URL answered within {@code schema-registry.retry.timeout} (refused, timed out, 5xx). Not bad input:
 * the task fails and the job restarts from its last checkpoint, so no record is skipped for it.
 */
public final class RegistryUnavailableException extends IOException {

    private static final long serialVersionUID = 1L;

    public RegistryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
