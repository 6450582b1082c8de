package io.archiver.testutils;

import io.archiver.config.JobOptions;
import io.archiver.config.CheckpointOptions;
import io.archiver.archive.ArchiveRoot;
import io.archiver.archive.VerificationReport;
import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.local.KafkaBrokers;
import io.archiver.position.ArchivePositions;
import io.archiver.position.PositionRecovery;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * One fault-injection run: a topic of {@value #PARTITIONS} partitions fed by a {@link ContinuousProducer}
 * (plain records and transactions, some aborted) while the archiver runs, helpers to stop, cancel and resume
 * the job, and {@link #finish()} which waits for the archive to catch up and proves, record by record, that
 * what a read_committed reader of the topic sees is archived exactly once, and nothing else.
 */
public final class FaultScenario implements AutoCloseable {

    public static final int PARTITIONS = 4;
    private static final Duration CATCH_UP = Duration.ofMinutes(3);

    private final SharedStack stack = SharedStack.get();
    private final KafkaBrokers kafka;
    private final String topic;
    private final ArchiverConfig config;
    private final PayloadFormats formats;
    private final ContinuousProducer producer;
    private final boolean compacted;
    private final ArchiveCounter counter;
    private JobClient job;
    private int jobsStarted;

    private FaultScenario(KafkaBrokers kafka, String bucket, String name, int records, int perSecond, Map<String, String> overrides,
            TestRecords.Timestamps timestamps, boolean compacted, Function<String, IntFunction<byte[]>> values) throws Exception {
        this.kafka = kafka;
        this.topic = SharedStack.uniqueName(name);
        this.compacted = compacted;
        if (compacted) {
            CompactedTopic.create(topic, PARTITIONS);
        } else {
            kafka.createTopic(topic, PARTITIONS);
        }
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("kafka.bootstrap.servers", kafka.bootstrapServers());
        settings.put("sink.path", "s3://" + bucket + "/" + topic);
        settings.put("checkpoint.dir", "s3://" + bucket + "/checkpoints/" + topic);
        settings.put("restart.attempts", "50");
        settings.put("restart.delay", "500 ms");
        settings.putAll(overrides);
        this.config = ArchiverConfig.of(settings);
        this.formats = PayloadFormats.of(config);
        this.counter = new ArchiveCounter(config.sinkPath(), formats);
        this.producer = new ContinuousProducer(
                kafka.bootstrapServers(), topic, PARTITIONS, records, perSecond, timestamps, compacted, values == null ? null : values.apply(topic));
        this.job = launch(config);
    }

    /** Creates the topic, starts producing {@code records} at {@code perSecond} and starts the archiver. */
    public static FaultScenario start(String name, int records, int perSecond, Map<String, String> overrides)
            throws Exception {
        return new FaultScenario(SharedStack.get().kafka(), SharedStack.BUCKET, name, records, perSecond, overrides, TestRecords.Timestamps.IN_ORDER, false, null);
    }

    /** {@link #start} on a broker of the test's own (one it may restart without touching the classes beside it). */
    public static FaultScenario startOn(KafkaBrokers kafka, String name, int records, int perSecond, Map<String, String> overrides)
            throws Exception {
        return new FaultScenario(kafka, SharedStack.BUCKET, name, records, perSecond, overrides, TestRecords.Timestamps.IN_ORDER, false, null);
    }

    /**
     * {@link #start} with the archive and checkpoints in {@code bucket} of the shared S3 server: a bucket of its own has an
     * S3 client and connection pool of its own, so requests a fault holds up hold up no other test's.
     */
    public static FaultScenario startInBucket(String bucket, String name, int records, int perSecond, Map<String, String> overrides)
            throws Exception {
        return new FaultScenario(SharedStack.get().kafka(), bucket, name, records, perSecond, overrides, TestRecords.Timestamps.IN_ORDER, false, null);
    }

    /**
     * {@link #start} on {@code kafka}, into {@code bucket}, with record {@code i}'s value made by what {@code values} gives for
     * the topic's name (a registry payload of a schema registered for it, say; null: the {@link TestRecords} JSON): the
     * benchmark suite's cluster soak, which puts every fault kind on one run.
     */
    public static FaultScenario start(KafkaBrokers kafka, String bucket, String name, int records, int perSecond, Map<String, String> overrides,
            Function<String, IntFunction<byte[]>> values) throws Exception {
        return new FaultScenario(kafka, bucket, name, records, perSecond, overrides, TestRecords.Timestamps.IN_ORDER, false, values);
    }

    /** {@link #start} on a compacted topic whose log already has compaction's holes ({@link CompactedTopic}). */
    public static FaultScenario startCompacted(String name, int records, int perSecond, Map<String, String> overrides)
            throws Exception {
        return new FaultScenario(SharedStack.get().kafka(), SharedStack.BUCKET, name, records, perSecond, overrides, TestRecords.Timestamps.IN_ORDER, true, null);
    }

    /** {@link #start} with records whose timestamps follow {@code timestamps}. */
    public static FaultScenario start(
            String name, int records, int perSecond, Map<String, String> overrides, TestRecords.Timestamps timestamps)
            throws Exception {
        return new FaultScenario(SharedStack.get().kafka(), SharedStack.BUCKET, name, records, perSecond, overrides, timestamps, false, null);
    }

    public ArchiverConfig config() {
        return config;
    }

    public void awaitArchived(long atLeast) throws Exception {
        Await.until(atLeast + " records archived", CATCH_UP, () -> counter.count() >= atLeast, this::progress);
    }

    /** Per partition, the offset of the last record produced so far that a read_committed reader sees. */
    public Map<Integer, Long> lastCommittedOffsets() {
        return producer.lastCommittedOffsets();
    }

    /**
     * Waits until the archive's position of each partition of {@code lastCommitted} lies beyond its offset: the job committed
     * those records (its position records are written with each commit). One read of the positions per poll, however many
     * files the archive holds, where {@link #awaitArchived} lists and counts them.
     */
    public void awaitPositionsBeyond(Map<Integer, Long> lastCommitted) throws Exception {
        PositionRecovery positions = new PositionRecovery(ArchiveRoot.of(config));
        Await.until("the archive's positions beyond " + lastCommitted, CATCH_UP, () -> {
            ArchivePositions now = positions.read();
            return lastCommitted.entrySet().stream().allMatch(e -> now.record(new TopicPartition(topic, e.getKey()))
                    .map(r -> r.nextOffset() > e.getValue()).orElse(false));
        }, this::progress);
    }

    /** Waits until the producer has handed {@code atLeast} records to Kafka. */
    public void awaitProduced(long atLeast) throws Exception {
        Await.until(atLeast + " records produced", CATCH_UP, () -> producer.sent() >= atLeast, this::progress);
    }

    /** Waits until the producer has handed every record to Kafka and ended its transactions. */
    public void awaitProducerDone() throws Exception {
        producer.awaitDone(CATCH_UP.toMillis());
    }

    /** Stops the producer (a run of a set length, not of a set number of records): {@link #drain()} then takes what it sent. */
    public void stopProducing() throws InterruptedException {
        producer.close();
    }

    /** Records produced so far that a read_committed reader sees (aborted transactions left out). */
    public long committedSoFar() {
        return producer.committed();
    }

    /** Records produced so far in transactions that were then aborted. */
    public long abortedSoFar() {
        return producer.aborted();
    }

    /** The job's last failure as its JobManager keeps it: when (epoch milliseconds) and its causes' stack trace. */
    public Optional<Failure> lastFailure() throws Exception {
        var graph = SharedStack.get().miniCluster().getExecutionGraph(job.getJobID()).get(10, TimeUnit.SECONDS);
        return graph.getFailureInfo() == null ? Optional.empty() : Optional.of(new Failure(graph.getFailureInfo().getTimestamp(),
                graph.getFailureInfo().getExceptionAsString()));
    }

    /** The job's checkpoint statistics (what Flink's checkpoint metrics export): counts and durations, across its restarts. */
    public org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot checkpointStats() throws Exception {
        return SharedStack.get().miniCluster().getExecutionGraph(job.getJobID()).get(10, TimeUnit.SECONDS).getCheckpointStatsSnapshot();
    }

    /** A failure of the job: when, and its causes' stack trace. */
    public record Failure(long timestamp, String cause) {}

    /**
     * Where the run stands, for a timeout's message (one line): the counts, the job's state and last failure, and
     * what an audit of the archive against Kafka finds (a stalled job and records lost look alike by count).
     */
    private String progress() throws Exception {
        var graph = SharedStack.get().miniCluster().getExecutionGraph(job.getJobID()).get(10, TimeUnit.SECONDS);
        String failure = graph.getFailureInfo() == null ? "no failure" : "last failure: " + graph.getFailureInfo().getExceptionAsString().lines().findFirst().orElse("");
        Cli.Result audit = Cli.run(config, "audit");
        return "archived " + counter.count() + ", produced " + producer.sent() + " (committed " + producer.committed() + "), job " + job.getJobID() + " "
                + graph.getState() + ", " + failure + "; audit: " + String.join(" | ", audit.out().lines().toList());
    }

    /**
     * Stops the job with a savepoint and returns its path. A job still recovering from an earlier fault
     * refuses the savepoint (not all tasks running), and one just submitted cannot be asked yet (its job
     * master is still initializing): it is asked again until it takes one.
     */
    public String stopWithSavepoint() throws Exception {
        String[] savepoint = new String[1];
        Await.until("a savepoint of " + topic, CATCH_UP, () -> {
            try {
                savepoint[0] = job.stopWithSavepoint(false, "s3://" + SharedStack.BUCKET + "/savepoints/" + topic,
                        SavepointFormatType.CANONICAL).get(2, TimeUnit.MINUTES);
                return true;
            } catch (java.util.concurrent.ExecutionException e) {
                boolean notReady = org.apache.flink.util.ExceptionUtils.findThrowable(e, org.apache.flink.runtime.checkpoint.CheckpointException.class).isPresent()
                        || org.apache.flink.util.ExceptionUtils.findThrowable(
                                e, org.apache.flink.runtime.dispatcher.UnavailableDispatcherOperationException.class).isPresent();
                if (notReady && !job.getJobStatus().get().isGloballyTerminalState()) {
                    return false;
                }
                throw e;
            }
        });
        return savepoint[0];
    }

    /** Cancels the job once it has completed a checkpoint; its latest checkpoint is retained. */
    public void cancel() throws Exception {
        Checkpoints.latest(jobCheckpointDir());
        job.cancel().get(1, TimeUnit.MINUTES);
        Await.until("job cancelled", Duration.ofMinutes(1), () -> job.getJobStatus().get().isGloballyTerminalState());
    }

    /** The latest completed checkpoint the (cancelled) job left in its checkpoint folder. */
    public String latestRetainedCheckpoint() throws Exception {
        return Checkpoints.latest(jobCheckpointDir());
    }

    private String jobCheckpointDir() {
        return config.get(io.archiver.config.CheckpointOptions.CHECKPOINT_DIR) + "/" + job.getJobID();
    }

    /**
     * Starts a new job with no checkpoint or savepoint (as after a redeployment that lost its state), with
     * these settings changed.
     */
    public void restartWithoutState(Map<String, String> changes) throws Exception {
        job = launch(config.with(changes));
    }

    /** Waits until the current job fails for good and returns why. */
    public Throwable awaitFailure(Duration timeout) throws Exception {
        try {
            job.getJobExecutionResult().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("job " + job.getJobID() + " ended without failing");
    }

    /** S3 faults for this scenario's objects only (archive, checkpoints, savepoints), healed when it closes. */
    public S3Faults s3Faults() {
        return stack.s3Faults(topic);
    }

    /** The topic the scenario produces to and archives. */
    public String topic() {
        return topic;
    }

    /** Starts a new job from a savepoint or retained checkpoint, with another parallelism if wanted. */
    public void resume(String statePath, int parallelism) throws Exception {
        resume(statePath, Map.of("parallelism", Integer.toString(parallelism)));
    }

    /** Starts a new job from a savepoint or retained checkpoint, with these settings changed. */
    public void resume(String statePath, Map<String, String> changes) throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(changes);
        settings.put("flink.execution.state-recovery.path", statePath);
        job = launch(config.with(settings));
    }

    /**
     * Waits until everything produced is archived, stops the job and asserts that every record Kafka holds
     * is archived exactly once with its content, and nothing else.
     */
    public VerificationReport finish() throws Exception {
        return ArchiveAssertions.assertExactlyOnce(config.sinkPath(), formats, drain(), compacted);
    }

    /**
     * Waits until the producer is done and the archive holds as many records as Kafka, stops the job and
     * returns what Kafka holds (the ground truth).
     */
    public List<ArchiveRecord> drain() throws Exception {
        producer.awaitDone(CATCH_UP.toMillis());
        List<ArchiveRecord> inKafka = KafkaTopicReader.readCommitted(kafka.bootstrapServers(), topic, producer.committed());
        if (inKafka.size() < producer.committed()) {
            throw new AssertionError("Kafka holds " + inKafka.size() + " committed records of " + topic + " but "
                    + producer.committed() + " were acknowledged or committed");
        }
        if (producer.aborted() == 0) {
            throw new AssertionError("No transaction of " + topic + " was aborted: the run proves nothing about aborted records");
        }
        awaitArchived(inKafka.size());
        cancel();
        return inKafka;
    }

    /** Jobs started so far (the first one and every resume). */
    public int jobsStarted() {
        return jobsStarted;
    }

    private JobClient launch(ArchiverConfig config) throws Exception {
        jobsStarted++;
        return JobLauncher.environment(config).executeAsync(config.get(io.archiver.config.JobOptions.JOB_NAME));
    }

    @Override
    public void close() throws Exception {
        stack.healS3Faults(topic);
        producer.close();
        if (!job.getJobStatus().get().isGloballyTerminalState()) {
            job.cancel().get(1, TimeUnit.MINUTES);
        }
    }
}
