package io.archiver.exactlyonce;

import io.archiver.archive.IncompleteUploads;
import io.archiver.config.SinkLayout;
import io.archiver.fs.S3BucketAccess;
import io.archiver.testutils.Await;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.KillsTaskManagers;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedStack;

import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Fault 1: every TaskManager killed at several random points while records arrive; recovery from checkpoints. The
 * job's sweep of orphaned uploads runs throughout (aborting what is older than 10 s): it never aborts an upload a
 * recovery still needs (exactly once, record by record), and what the kills left does not stay.
 */
@KillsTaskManagers
@LongRunning(seconds = 40)
class TaskFailureITCase {

    private static final Duration ABORT_AFTER = Duration.ofSeconds(10);

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void repeatedTaskFailuresAtRandomPointsLoseAndDuplicateNothingAndLeaveNoOrphanedUpload(SinkLayout layout) throws Exception {
        long seed = Long.getLong("faults.seed", System.nanoTime());
        System.out.println("TaskFailureITCase seed " + seed + " (rerun with -Dfaults.seed=" + seed + ")");
        Random random = new Random(seed);
        Map<String, String> settings = Map.of("parallelism", "2", "sink.layout", layout.configName(),
                "checkpoint.timeout", "8 s", "sink.orphaned-uploads.abort-after", ABORT_AFTER.toSeconds() + " s");
        try (FaultScenario s = FaultScenario.start("task-failures", 24_000, 3_000, settings)) {
            String root = s.config().sinkPath();
            // an upload nobody will complete, as a kill leaves one: started before the job's first sweep
            String leftOver = startUpload(root + "/topic=" + s.topic() + "/partition=0/part-left-by-a-kill-0.bin");
            for (int failure = 0; failure < 3; failure++) {
                s.awaitArchived(1 + random.nextInt(2_000) + failure * 4_000L);
                SharedStack.get().killAndReplaceTaskManagers();
            }
            // the job recovered from the last kill has committed what it restored: every upload started before
            // that kill and still incomplete is an orphan, aborted once older than the age (the job still runs)
            Instant lastKill = Instant.now();
            IncompleteUploads uploads = SharedStack.get().uploads();
            Await.until("the uploads the kills left under " + root + " aborted", Duration.ofMinutes(1), () -> {
                List<IncompleteUploads.Upload> left = uploads.list(root);
                return left.stream().noneMatch(u -> u.uploadId().equals(leftOver) || u.startedBefore(lastKill));
            }, () -> "incomplete: " + uploads.list(root));
            s.finish();
        }
    }

    /** Starts a multipart upload of {@code path} (s3://bucket/key) that nothing completes; returns its id. */
    private static String startUpload(String path) {
        URI uri = URI.create(path);
        Configuration s3 = Configuration.fromMap(SharedStack.get().s3().flinkSettings());
        try (S3Client client = S3BucketAccess.ofFlinkSettings(s3, uri.getHost()).client()) {
            return client.createMultipartUpload(b -> b.bucket(uri.getHost()).key(uri.getPath().substring(1))).uploadId();
        }
    }
}
