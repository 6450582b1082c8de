package io.archiver.testutils;

import org.gaul.s3proxy.blobstore.S3Exceptions;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Faults armed in the S3 server ({@link FaultInjectingBlobStore}) for the objects of one test's archive, its
 * checkpoints and savepoints ({@link FaultInjectingBlobStore#of}), or for every object ({@link
 * FaultInjectingBlobStore#everywhere}, only for {@code @Isolated} classes): an outage (every data request
 * answered 500/503 for a while), failures of the commit step (CompleteMultipartUpload refused, or carried out with
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

    /** Every data request is answered with {@code status} for {@code duration}. */
    public void outage(int status, Duration duration) {
        outageStatus = status;
        outageUntil.set(System.currentTimeMillis() + duration.toMillis());
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
