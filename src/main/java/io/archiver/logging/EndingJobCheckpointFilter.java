package io.archiver.logging;

import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.logging.log4j.core.Filter;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.config.Node;
import org.apache.logging.log4j.core.config.plugins.Plugin;
import org.apache.logging.log4j.core.config.plugins.PluginAttribute;
import org.apache.logging.log4j.core.config.plugins.PluginFactory;
import org.apache.logging.log4j.core.filter.AbstractFilter;

/**
 * Drops the warning Flink logs when a periodic checkpoint trigger, timed just before a job was cancelled or stopped,
 * runs after the job stopped its checkpoint scheduler: "Failed to trigger or complete checkpoint
 * UNKNOWN_CHECKPOINT_ID … (0 consecutive failed attempts so far)" with a {@link CheckpointException} of reason
 * {@link CheckpointFailureReason#PERIODIC_SCHEDULER_SHUTDOWN}. The job is ending and nothing is lost; Flink does not
 * count it as a failed checkpoint. Every other checkpoint failure passes, with the same message and another reason.
 *
 * <p>A log4j plugin rather than a regex filter because the reason is only in the logged exception, never in the
 * message. It serves the JVMs that load this jar's classes with their logging (the command line, the local command
 * and the local Flink it runs): {@code archiver-log4j2.properties}.
 */
@Plugin(name = "EndingJobCheckpointFilter", category = Node.CATEGORY, elementType = Filter.ELEMENT_TYPE, printObject = true)
public final class EndingJobCheckpointFilter extends AbstractFilter {

    private EndingJobCheckpointFilter(Result onMatch, Result onMismatch) {
        super(onMatch, onMismatch);
    }

    /** Drops the warning unless {@code onMatch} says otherwise; passes every other event on. */
    @PluginFactory
    public static EndingJobCheckpointFilter createFilter(@PluginAttribute("onMatch") Result onMatch,
                                                         @PluginAttribute("onMismatch") Result onMismatch) {
        return new EndingJobCheckpointFilter(onMatch == null ? Result.DENY : onMatch, onMismatch == null ? Result.NEUTRAL : onMismatch);
    }

    @Override
    public Result filter(LogEvent event) {
        return event.getThrown() instanceof CheckpointException failure
                && failure.getCheckpointFailureReason() == CheckpointFailureReason.PERIODIC_SCHEDULER_SHUTDOWN
                ? onMatch : onMismatch;
    }
}
