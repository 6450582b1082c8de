package io.archiver.testutils;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.util.ExceptionUtils;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Waits on and stops test jobs so that a job that failed on its own says why: the assertion carries the job's
 * own failure (the last restart's cause when restarts ran out), not "was not canceled, but instead FAILED".
 */
public final class Jobs {

    private static final long ANSWER_SECONDS = 60;

    private Jobs() {}

    /** {@link Await#until}, failing at once with the job's failure when the job ends before the condition holds. */
    public static void awaitWhileRunning(JobClient job, String what, Duration timeout, Callable<Boolean> condition)
            throws Exception {
        Await.until(what, timeout, () -> {
            if (condition.call()) {
                return true;
            }
            JobStatus status = status(job);
            if (status.isGloballyTerminalState()) {
                throw failure(job, status, "while waiting for " + what);
            }
            return false;
        });
    }

    /** Cancels a running job; a job that already failed fails the test with its own failure as the cause. */
    public static void cancel(JobClient job) throws Exception {
        JobStatus status = status(job);
        if (status == JobStatus.FAILED) {
            throw failure(job, status, "before it was cancelled");
        }
        if (!status.isGloballyTerminalState()) {
            job.cancel().get(ANSWER_SECONDS, TimeUnit.SECONDS);
        }
    }

    /**
     * The MiniCluster's jobs (name, state) and the stacks of this JVM's threads whose names contain one of {@code names}
     * (the MiniCluster's tasks and their Kafka clients run in this JVM): where a job that does not end waits.
     */
    public static String threadDump(String... names) {
        StringBuilder dump = new StringBuilder();
        try {
            SharedStack.get().miniCluster().listJobs().get(ANSWER_SECONDS, TimeUnit.SECONDS)
                    .forEach(j -> dump.append("job ").append(j.getJobName()).append(": ").append(j.getJobState()).append('\n'));
        } catch (Exception e) {
            dump.append("jobs unknown: ").append(e).append('\n');
        }
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (java.util.Arrays.stream(names).anyMatch(thread.getName()::contains)) {
                dump.append('"').append(thread.getName()).append("\" ").append(thread.getState()).append('\n');
                for (StackTraceElement frame : stack) {
                    dump.append("    at ").append(frame).append('\n');
                }
            }
        });
        return dump.toString();
    }

    private static JobStatus status(JobClient job) throws Exception {
        return job.getJobStatus().get(ANSWER_SECONDS, TimeUnit.SECONDS);
    }

    private static AssertionError failure(JobClient job, JobStatus status, String when) throws Exception {
        try {
            job.getJobExecutionResult().get(ANSWER_SECONDS, TimeUnit.SECONDS);
            return new AssertionError("Job " + job.getJobID() + " ended " + status + " " + when);
        } catch (ExecutionException ended) {
            Throwable cause = ExceptionUtils.stripExecutionException(ended);
            Throwable root = ExceptionUtils.findThrowable(cause, t -> t.getCause() == null).orElse(cause);
            return new AssertionError(
                    "Job " + job.getJobID() + " ended " + status + " " + when + ": " + root, cause);
        }
    }
}
