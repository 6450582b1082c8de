package io.archiver.testutils;

import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.blobstore.S3Exceptions;
import org.gaul.s3proxy.blobstore.domain.MultipartUpload;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sits inside the S3 server and answers requests with errors on command, so clients meet the faults on the
 * real HTTP path: an outage (every data request answered 500/503 for a while), or failures of the commit
 * step (CompleteMultipartUpload refused, or carried out with its answer lost).
 */
public final class FaultInjectingBlobStore extends ForwardingBlobStore {

    private final AtomicLong outageUntil = new AtomicLong();
    private volatile int outageStatus = 503;
    private final AtomicInteger refuseCompletes = new AtomicInteger();
    private final AtomicInteger loseCompleteAnswers = new AtomicInteger();
    private final AtomicInteger completesBeforeHalt = new AtomicInteger(-1);
    private final AtomicInteger refuseStarts = new AtomicInteger();
    private final AtomicInteger refuseParts = new AtomicInteger();
    private final AtomicInteger injected = new AtomicInteger();
    private volatile String limit;

    public FaultInjectingBlobStore(BlobStore delegate) {
        super(delegate);
    }

    /**
     * From now on, faults hit only the objects of one archive, its checkpoints and savepoints: keys with a folder
     * named {@code name} (a test's unique name, e.g. {@link FaultScenario#topic()}), so tests running at the
     * same time meet none of them. {@link #reset()} lifts the limit; {@link #heal()} keeps it.
     */
    public void limitTo(String name) {
        limit = name;
    }

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

    /**
     * The next {@code n} CompleteMultipartUpload requests of archive data files are carried out, every later one
     * is refused with 503 until {@link #reset()}: commits stop in the middle of a checkpoint's files. Other
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

    /** Heals every fault and lifts the {@linkplain #limitTo limit}: the store forwards every request again. */
    public void reset() {
        heal();
        limit = null;
    }

    /** Heals every fault; faults armed later hit what the {@linkplain #limitTo limit} allows, as before. */
    public void heal() {
        outageUntil.set(0);
        refuseCompletes.set(0);
        refuseStarts.set(0);
        refuseParts.set(0);
        loseCompleteAnswers.set(0);
        completesBeforeHalt.set(-1);
    }

    /** Whether a fault may hit the object {@code key} (or the objects under a listed prefix). */
    private boolean hits(String key) {
        String name = limit;
        return name == null || (key != null && java.util.Arrays.asList(key.split("/")).contains(name));
    }

    private void maybeOutage(String key) {
        if (System.currentTimeMillis() < outageUntil.get() && hits(key)) {
            injected.incrementAndGet();
            throw S3Exceptions.fromStatusCode(outageStatus);
        }
    }

    /** 403 (S3A does not retry it) for a request on an archive part file while {@code counter} lasts. */
    private void refuseArchiveFile(String key, AtomicInteger counter) {
        if (isArchiveFile(key) && hits(key) && take(counter)) {
            injected.incrementAndGet();
            throw S3Exceptions.fromStatusCode(403);
        }
    }

    private static boolean isArchiveFile(String key) {
        return key != null && key.contains("/topic=");
    }

    private static boolean take(AtomicInteger counter) {
        return counter.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }

    @Override
    public CompleteMultipartUploadResponse completeMultipartUpload(MultipartUpload mpu, CompleteMultipartUploadRequest request) {
        maybeOutage(request.key());
        boolean hit = hits(request.key());
        if (hit && ((isArchiveFile(request.key()) && completesBeforeHalt.getAndUpdate(n -> n > 0 ? n - 1 : n) == 0) || take(refuseCompletes))) {
            injected.incrementAndGet();
            throw S3Exceptions.fromStatusCode(503);
        }
        CompleteMultipartUploadResponse response = super.completeMultipartUpload(mpu, request);
        if (hit && take(loseCompleteAnswers)) {
            injected.incrementAndGet();
            throw S3Exceptions.fromStatusCode(500);
        }
        return response;
    }

    @Override
    public PutObjectResponse putBlob(PutObjectRequest request, InputStream in) {
        maybeOutage(request.key());
        return super.putBlob(request, in);
    }

    @Override
    public MultipartUpload initiateMultipartUpload(CreateMultipartUploadRequest request) {
        maybeOutage(request.key());
        refuseArchiveFile(request.key(), refuseStarts);
        return super.initiateMultipartUpload(request);
    }

    @Override
    public UploadPartResponse uploadMultipartPart(MultipartUpload mpu, UploadPartRequest request, InputStream in) {
        maybeOutage(request.key());
        refuseArchiveFile(request.key(), refuseParts);
        return super.uploadMultipartPart(mpu, request, in);
    }

    @Override
    public ResponseInputStream<GetObjectResponse> getBlob(GetObjectRequest request) {
        maybeOutage(request.key());
        return super.getBlob(request);
    }

    @Override
    public HeadObjectResponse blobMetadata(HeadObjectRequest request) {
        maybeOutage(request.key());
        return super.blobMetadata(request);
    }

    @Override
    public ListObjectsV2Response list(ListObjectsV2Request request) {
        maybeOutage(request.prefix());
        return super.list(request);
    }

    @Override
    public DeleteObjectResponse removeBlob(DeleteObjectRequest request) {
        maybeOutage(request.key());
        return super.removeBlob(request);
    }
}
