package io.archiver.testutils;

import org.gaul.s3proxy.blobstore.S3Exceptions;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Faults armed in the S3 server ({@link FaultInjectingBlobStore}) for the objects of one test's archive, its
 * checkpoints and savepoints ({@link FaultInjectingBlobStore#of}), or for every object ({@link
 * FaultInjectingBlobStore#everywhere}, only for {@code @Isolated} classes): an outage (every data request
 * answered 500/503 for a while), throttling (bursts of 503 SlowDown, as S3 answers a prefix taking more requests than
 * it will), stalls (every request answered seconds late), failures of the commit step (CompleteMultipartUpload refused, or carried out with
 * its answer lost), lost answers to object writes, refused uploads of archive part files.
 */
public final class S3Faults {

    private final AtomicLong outageUntil = new AtomicLong();
    private volatile int outageStatus = 503;
    private final AtomicInteger refuseCompletes = new AtomicInteger();
    private final AtomicInteger loseCompleteAnswers = new AtomicInteger();
    private final AtomicInteger losePutAnswers = new AtomicInteger();
    private final AtomicInteger completesBeforeHalt = new AtomicInteger(-1);
    private final AtomicInteger refuseStarts = new AtomicInteger();
    private final AtomicInteger refuseParts = new AtomicInteger();
    private final AtomicInteger injected = new AtomicInteger();
    private volatile boolean refuseTableWrites;
    private volatile long throttleFrom;
    private volatile long throttleUntil;
    private volatile long burstMillis;
    private volatile long periodMillis;
    private volatile long stallUntil;
    private volatile long stallMillis;
    private final AtomicInteger stalled = new AtomicInteger();

    /** Every data request is answered with {@code status} for {@code duration}. */
    public void outage(int status, Duration duration) {
        outageStatus = status;
        outageUntil.set(System.currentTimeMillis() + duration.toMillis());
    }

    /**
     * For {@code total} from now: bursts of {@code burst} in which every data request is answered 503 {@code SlowDown}
     * (S3's throttling), {@code pause} apart.
     */
    public void slowDownBursts(Duration burst, Duration pause, Duration total) {
        burstMillis = burst.toMillis();
        periodMillis = burst.toMillis() + pause.toMillis();
        throttleFrom = System.currentTimeMillis();
        throttleUntil = throttleFrom + total.toMillis();
    }

    /** For {@code total} from now, every data request is served {@code delay} late. */
    public void stall(Duration delay, Duration total) {
        stallMillis = delay.toMillis();
        stallUntil = System.currentTimeMillis() + total.toMillis();
    }

    /** Requests served late by {@link #stall} so far. */
    public int stalledRequests() {
        return stalled.get();
    }

    /** The next {@code n} CompleteMultipartUpload requests are refused with 503 before anything happens. */
    public void refuseNextCompletes(int n) {
        refuseCompletes.set(n);
    }

    /** The next {@code n} CompleteMultipartUpload requests are carried out, then answered with 500. */
    public void loseNextCompleteAnswers(int n) {
        loseCompleteAnswers.set(n);
    }

    /** The next {@code n} PutObject requests are carried out, then answered with 500 (clients retry that). */
    public void loseNextPutAnswers(int n) {
        losePutAnswers.set(n);
    }

    /**
     * The next {@code n} CompleteMultipartUpload requests of archive data files are carried out, every later one
     * is refused with 503 until {@link #heal()}: commits stop in the middle of a checkpoint's files. Other
     * uploads (Flink writes checkpoint metadata as multipart uploads too) go through, so checkpoints complete.
     */
    public void haltCompletesAfter(int n) {
        completesBeforeHalt.set(n);
    }

    /** The next {@code n} multipart uploads of archive files to start (when a part file opens) are refused with 403. */
    public void refuseNextArchiveUploadStarts(int n) {
        refuseStarts.set(n);
    }

    /** The next {@code n} part uploads of archive files (when a part file closes) are refused with 403. */
    public void refuseNextArchivePartUploads(int n) {
        refuseParts.set(n);
    }

    /**
     * Every write of the Iceberg tables' metadata (under {@code _archiver/tables/}) is refused with 403 until {@link
     * #heal()}: the table's commits fail while the archive's files commit, as when the catalog's store is down.
     */
    public void refuseTableWrites() {
        refuseTableWrites = true;
    }

    /** True once {@link #haltCompletesAfter} has let its requests through and refuses the rest. */
    public boolean completesHalted() {
        return completesBeforeHalt.get() == 0;
    }

    public boolean inOutage() {
        return System.currentTimeMillis() < outageUntil.get();
    }

    /** True while {@link #slowDownBursts} or {@link #stall} last. */
    public boolean throttlingOrStalling() {
        long now = System.currentTimeMillis();
        return now < throttleUntil || now < stallUntil;
    }

    /** Errors answered so far. */
    public int injectedFaults() {
        return injected.get();
    }

    /** Heals every fault: requests go through again. */
    public void heal() {
        outageUntil.set(0);
        refuseCompletes.set(0);
        refuseStarts.set(0);
        refuseParts.set(0);
        loseCompleteAnswers.set(0);
        losePutAnswers.set(0);
        completesBeforeHalt.set(-1);
        refuseTableWrites = false;
        throttleUntil = 0;
        stallUntil = 0;
    }

    /** Before an object under a table's metadata is written. */
    void onTableWrite() {
        if (refuseTableWrites) {
            throw injected(403);
        }
    }

    void duringOutage() {
        if (inOutage()) {
            throw injected(outageStatus);
        }
        long now = System.currentTimeMillis();
        if (now < throttleUntil && (now - throttleFrom) % periodMillis < burstMillis) {
            injected.incrementAndGet();
            throw slowDown();
        }
        if (now < stallUntil) {
            stalled.incrementAndGet();
            try {
                Thread.sleep(stallMillis); // the fault itself: the request is served this late
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** S3's answer to a prefix taking more requests than it will: 503 with the error code clients treat as throttling. */
    private static S3Exception slowDown() {
        return (S3Exception) S3Exception.builder().statusCode(503).message("Please reduce your request rate.")
                .awsErrorDetails(AwsErrorDetails.builder().errorCode("SlowDown").errorMessage("Please reduce your request rate.")
                        .sdkHttpResponse(SdkHttpResponse.builder().statusCode(503).build()).build())
                .build();
    }

    void onArchiveUploadStart() {
        failIfTaken(refuseStarts, 403);
    }

    void onArchivePartUpload() {
        failIfTaken(refuseParts, 403);
    }

    /** Before a CompleteMultipartUpload of {@code archiveFile} or another object is carried out. */
    void beforeComplete(boolean archiveFile) {
        if ((archiveFile && completesBeforeHalt.getAndUpdate(n -> n > 0 ? n - 1 : n) == 0) || take(refuseCompletes)) {
            throw injected(503);
        }
    }

    /** After a CompleteMultipartUpload was carried out. */
    void afterComplete() {
        failIfTaken(loseCompleteAnswers, 500);
    }

    /** After a PutObject was carried out. */
    void afterPut() {
        failIfTaken(losePutAnswers, 500);
    }

    /** Answers {@code status} while {@code counter} lasts. */
    private void failIfTaken(AtomicInteger counter, int status) {
        if (take(counter)) {
            throw injected(status);
        }
    }

    private RuntimeException injected(int status) {
        injected.incrementAndGet();
        return S3Exceptions.fromStatusCode(status);
    }

    private static boolean take(AtomicInteger counter) {
        return counter.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }
}
