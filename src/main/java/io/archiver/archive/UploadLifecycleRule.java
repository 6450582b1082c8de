package io.archiver.archive;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.AbortIncompleteMultipartUpload;
import software.amazon.awssdk.services.s3.model.BucketLifecycleConfiguration;
import software.amazon.awssdk.services.s3.model.ExpirationStatus;
import software.amazon.awssdk.services.s3.model.GetBucketLifecycleConfigurationRequest;
import software.amazon.awssdk.services.s3.model.LifecycleRule;
import software.amazon.awssdk.services.s3.model.LifecycleRuleFilter;
import software.amazon.awssdk.services.s3.model.PutBucketLifecycleConfigurationRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The bucket's own bound on orphaned uploads: an S3 lifecycle rule with {@code AbortIncompleteMultipartUpload} that
 * covers the archive's prefix. Where the store has one, S3 aborts what killed or cancelled runs left behind even when
 * no job runs; where it has none (or, like S3Proxy, no lifecycle rules at all) the running job's sweep
 * ({@code sink.orphaned-uploads.abort-after}) does it. Pre-flight says which holds; {@code cleanup
 * --install-lifecycle-rule} adds the rule, keeping the bucket's other rules.
 *
 * <p>A rule cannot tell an upload that a retained checkpoint still needs from an orphan (the sweep can: it keeps
 * what position records list), so its days must exceed the longest a job may stay down and still restore from its
 * last checkpoint.
 */
public final class UploadLifecycleRule {

    /** The id of the rule {@link #install} adds, one per archive prefix. */
    static final String RULE_ID_PREFIX = "kafka-s3-archiver-abort-incomplete-uploads";

    private final S3Client client;

    public UploadLifecycleRule(S3Client client) {
        this.client = client;
    }

    /**
     * What the bucket does with incomplete uploads under a prefix: a rule ({@code ruleId}) aborts them {@code days} after
     * they start, no enabled rule covers the prefix as a whole, or the store has no lifecycle rules or refuses to show
     * them ({@code reason}: its answer).
     */
    public record Status(Kind kind, String ruleId, int days, String reason) {

        public enum Kind {
            COVERED,
            NOT_COVERED,
            UNKNOWN
        }

        static Status covered(String ruleId, int days) {
            return new Status(Kind.COVERED, ruleId, days, null);
        }

        static Status notCovered() {
            return new Status(Kind.NOT_COVERED, null, 0, null);
        }

        public static Status unknown(String reason) {
            return new Status(Kind.UNKNOWN, null, 0, reason);
        }
    }

    /** Whether a rule of the bucket of {@code root} aborts incomplete uploads under its prefix. */
    public Status check(String root) {
        ArchiveRoot at = ArchiveRoot.of(root);
        try {
            return covering(rules(at.bucket()), at.keyPrefix())
                    .map(r -> Status.covered(r.id(), r.abortIncompleteMultipartUpload().daysAfterInitiation()))
                    .orElse(Status.notCovered());
        } catch (S3Exception e) {
            return Status.unknown(describe(e));
        } catch (SdkException e) {
            return Status.unknown(e.getMessage());
        }
    }

    /**
     * Adds a rule aborting incomplete uploads under the prefix of {@code root} {@code after} they started (rounded up
     * to whole days, at least one), keeping every other rule of the bucket; replaces a rule this method added for the
     * same prefix before. Returns the rule's id.
     *
     * @throws S3Exception if the store refuses (no lifecycle support, no {@code s3:PutLifecycleConfiguration})
     */
    public String install(String root, Duration after) {
        ArchiveRoot at = ArchiveRoot.of(root);
        String id = RULE_ID_PREFIX + (at.keyPrefix().isEmpty() ? "" : ":" + at.keyPrefix());
        List<LifecycleRule> rules = new ArrayList<>(rules(at.bucket()).stream().filter(r -> !id.equals(r.id())).toList());
        rules.add(LifecycleRule.builder()
                .id(id)
                .status(ExpirationStatus.ENABLED)
                .filter(LifecycleRuleFilter.builder().prefix(at.keyPrefix()).build())
                .abortIncompleteMultipartUpload(AbortIncompleteMultipartUpload.builder().daysAfterInitiation(days(after)).build())
                .build());
        client.putBucketLifecycleConfiguration(PutBucketLifecycleConfigurationRequest.builder()
                .bucket(at.bucket())
                .lifecycleConfiguration(BucketLifecycleConfiguration.builder().rules(rules).build())
                .build());
        return id;
    }

    /** The store's answer: its error code and HTTP status ({@code NotImplemented (HTTP 501)}). */
    public static String describe(S3Exception e) {
        return e.awsErrorDetails() == null || e.awsErrorDetails().errorCode() == null ? e.getMessage()
                : e.awsErrorDetails().errorCode() + " (HTTP " + e.statusCode() + ")";
    }

    /** Whole days, rounded up, at least one: what a lifecycle rule can say. */
    public static int days(Duration after) {
        return (int) Math.max(1, (after.toHours() + 23) / 24);
    }

    /**
     * The enabled rule of {@code rules} that aborts incomplete uploads soonest of those that cover every key under
     * {@code prefix}: no filter, or a filter of a prefix of it alone (a rule that also asks for tags or object sizes
     * leaves uploads without them).
     */
    static Optional<LifecycleRule> covering(List<LifecycleRule> rules, String prefix) {
        return rules.stream()
                .filter(r -> r.status() == ExpirationStatus.ENABLED)
                .filter(r -> r.abortIncompleteMultipartUpload() != null && r.abortIncompleteMultipartUpload().daysAfterInitiation() != null)
                .filter(r -> rulePrefix(r).filter(prefix::startsWith).isPresent())
                .min(Comparator.comparing(r -> r.abortIncompleteMultipartUpload().daysAfterInitiation()));
    }

    /** The prefix a rule applies to, "" for every key; empty when it also filters on anything else. */
    @SuppressWarnings("deprecation") // rules written before filters carry their prefix on the rule itself
    private static Optional<String> rulePrefix(LifecycleRule rule) {
        LifecycleRuleFilter filter = rule.filter();
        if (filter == null) {
            return Optional.of(rule.prefix() == null ? "" : rule.prefix());
        }
        if (filter.tag() != null || filter.and() != null || filter.objectSizeGreaterThan() != null || filter.objectSizeLessThan() != null) {
            return Optional.empty();
        }
        return Optional.of(filter.prefix() == null ? "" : filter.prefix());
    }

    private List<LifecycleRule> rules(String bucket) {
        try {
            return client.getBucketLifecycleConfiguration(GetBucketLifecycleConfigurationRequest.builder().bucket(bucket).build()).rules();
        } catch (S3Exception e) {
            if (e.awsErrorDetails() != null && "NoSuchLifecycleConfiguration".equals(e.awsErrorDetails().errorCode())) {
                return List.of();
            }
            throw e;
        }
    }
}
