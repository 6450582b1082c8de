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

import java.util.EnumSet;
import java.util.Set;

/**
 * Drops the warnings Flink logs for a checkpoint cut short by its job's end: "Failed to trigger or complete checkpoint
 * … (0 consecutive failed attempts so far)" with a {@link CheckpointException} of reason {@link
 * CheckpointFailureReason#PERIODIC_SCHEDULER_SHUTDOWN} (a periodic trigger, timed just before the job was cancelled or
 * stopped, ran after the job stopped its checkpoint scheduler) or {@link
 * CheckpointFailureReason#CHECKPOINT_COORDINATOR_SUSPEND} (a checkpoint in flight as the job was cancelled, or as it
 * failed over, whose cause Flink logs by itself: "Checkpoint Coordinator is suspending"). Nothing is lost; Flink counts
 * neither as a failed checkpoint.
 * Every other checkpoint failure passes, with the same message and another reason.
 *
 * <p>A log4j plugin rather than a regex filter because the reason is only in the logged exception, never in the
 * message. It serves the JVMs that load this jar's classes with their logging (the command line, the local command
 * and the local Flink it runs): {@code archiver-log4j2.properties}.
 */
@Plugin(name = "EndingJobCheckpointFilter", category = Node.CATEGORY, elementType = Filter.ELEMENT_TYPE, printObject = true)
public final class EndingJobCheckpointFilter extends AbstractFilter {

    private static final Set<CheckpointFailureReason> ENDING =
            EnumSet.of(CheckpointFailureReason.PERIODIC_SCHEDULER_SHUTDOWN, CheckpointFailureReason.CHECKPOINT_COORDINATOR_SUSPEND);

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
        return event.getThrown() instanceof CheckpointException failure && ENDING.contains(failure.getCheckpointFailureReason())
                ? onMatch : onMismatch;
    }
}
