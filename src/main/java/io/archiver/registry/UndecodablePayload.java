package io.archiver.registry;

import java.io.IOException;

/**
 * A payload that cannot be decoded with its schema: not in the wire format, a schema id the registry does not have
 * (404) or will not give (401, 403), a schema that does not parse, or bytes that do not decode with it. Bad input:
 * the record follows {@code errors.policy}. The message names the schema id and what is wrong, never payload bytes.
 */
public final class UndecodablePayload extends Exception {

    private static final long serialVersionUID = 1L;

    public UndecodablePayload(String message) {
        super(message);
    }

    /**
     * This payload met again by a writer after the job's validator let it through (a schema that changed under
     * its id, a registry that answers differently): not bad input any more but a failure of the task.
     */
    public IOException afterValidation(String record) {
        return new IOException("Record " + record + ", validated, cannot be decoded now: its payload " + getMessage(), this);
    }
}
