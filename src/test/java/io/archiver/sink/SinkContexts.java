package io.archiver.sink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobInfo;
import org.apache.flink.api.common.JobInfoImpl;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.TaskInfoImpl;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.groups.SinkCommitterMetricGroup;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.groups.InternalSinkCommitterMetricGroup;
import org.apache.flink.runtime.metrics.groups.InternalSinkWriterMetricGroup;
import org.apache.flink.util.UserCodeClassLoader;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

/**
 * The init contexts a sink's writer and committer get from Flink, for running them outside a job: metrics
 * go nowhere, and timers are never fired (files roll on size and at the barrier only).
 */
final class SinkContexts {

    static final JobInfo JOB = new JobInfoImpl(new JobID(), "archive sink test");

    private SinkContexts() {}

    static WriterInitContext writer(int subtask) {
        return new WriterInitContext() {
            @Override
            public ProcessingTimeService getProcessingTimeService() {
                return new ProcessingTimeService() {
                    @Override
                    public long getCurrentProcessingTime() {
                        return System.currentTimeMillis();
                    }

                    @Override
                    public ScheduledFuture<?> registerTimer(long time, ProcessingTimeCallback callback) {
                        return null;
                    }
                };
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                throw new UnsupportedOperationException();
            }

            @Override
            public MailboxExecutor getMailboxExecutor() {
                throw new UnsupportedOperationException();
            }

            @Override
            public SinkWriterMetricGroup metricGroup() {
                return InternalSinkWriterMetricGroup.wrap(UnregisteredMetricsGroup.createOperatorMetricGroup());
            }

            @Override
            public SerializationSchema.InitializationContext asSerializationSchemaInitializationContext() {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean isObjectReuseEnabled() {
                return false;
            }

            @Override
            public <T> TypeSerializer<T> createInputSerializer() {
                throw new UnsupportedOperationException();
            }

            @Override
            public <MetaT> Optional<Consumer<MetaT>> metadataConsumer() {
                return Optional.empty();
            }

            @Override
            public OptionalLong getRestoredCheckpointId() {
                return OptionalLong.empty();
            }

            @Override
            public JobInfo getJobInfo() {
                return JOB;
            }

            @Override
            public TaskInfo getTaskInfo() {
                return new TaskInfoImpl("archive sink", 128, subtask, 2, 0);
            }
        };
    }

    static CommitterInitContext committer() {
        return new CommitterInitContext() {
            @Override
            public SinkCommitterMetricGroup metricGroup() {
                return InternalSinkCommitterMetricGroup.wrap(UnregisteredMetricsGroup.createOperatorMetricGroup());
            }

            @Override
            public OptionalLong getRestoredCheckpointId() {
                return OptionalLong.empty();
            }

            @Override
            public JobInfo getJobInfo() {
                throw new UnsupportedOperationException();
            }

            @Override
            public TaskInfo getTaskInfo() {
                return new TaskInfoImpl("archive committer", 128, 0, 1, 0);
            }
        };
    }
}
