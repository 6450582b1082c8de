package io.archiver.config;

/**
 * An error whose message alone tells the operator what is wrong and what to fix (a configuration key, a
 * pre-flight check, the archive's lease). The command line prints the message, without a stack trace, and exits
 * with its configuration-error code. Implemented by exceptions only.
 */
public interface UserFacingError {

    /** The message for the operator. */
    String getMessage();
}
