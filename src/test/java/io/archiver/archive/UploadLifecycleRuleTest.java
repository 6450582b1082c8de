package io.archiver.archive;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.AbortIncompleteMultipartUpload;
import software.amazon.awssdk.services.s3.model.ExpirationStatus;
import software.amazon.awssdk.services.s3.model.LifecycleRule;
import software.amazon.awssdk.services.s3.model.LifecycleRuleAndOperator;
import software.amazon.awssdk.services.s3.model.LifecycleRuleFilter;
import software.amazon.awssdk.services.s3.model.Tag;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Which of a bucket's lifecycle rules bounds the incomplete uploads under an archive's prefix (pure logic). */
class UploadLifecycleRuleTest {

    @Test
    void aRuleCoversThePrefixWhenItsOwnPrefixStartsItAndItFiltersOnNothingElse() {
        LifecycleRule everything = rule("all", 7, LifecycleRuleFilter.builder().build());
        LifecycleRule parent = rule("parent", 3, LifecycleRuleFilter.builder().prefix("kafka/").build());
        LifecycleRule sibling = rule("sibling", 1, LifecycleRuleFilter.builder().prefix("other/").build());
        LifecycleRule tagged = rule("tagged", 1, LifecycleRuleFilter.builder()
                .and(LifecycleRuleAndOperator.builder().prefix("kafka/").tags(Tag.builder().key("k").value("v").build()).build()).build());
        LifecycleRule disabled = rule("disabled", 1, LifecycleRuleFilter.builder().prefix("kafka/").build()).toBuilder()
                .status(ExpirationStatus.DISABLED).build();
        LifecycleRule expiryOnly = LifecycleRule.builder().id("expiry").status(ExpirationStatus.ENABLED)
                .filter(LifecycleRuleFilter.builder().prefix("kafka/").build()).build();

        assertThat(UploadLifecycleRule.covering(List.of(everything, parent, sibling, tagged, disabled, expiryOnly), "kafka/orders/"))
                .as("the soonest of the rules that cover every key under the prefix").map(LifecycleRule::id).contains("parent");
        assertThat(UploadLifecycleRule.covering(List.of(sibling, tagged, disabled, expiryOnly), "kafka/orders/")).isEmpty();
        assertThat(UploadLifecycleRule.covering(List.of(rule("deeper", 1, LifecycleRuleFilter.builder().prefix("kafka/orders/x").build())),
                "kafka/orders/")).as("a rule for part of the archive does not bound all of it").isEmpty();
    }

    @Test
    void aRuleSaysWholeDaysRoundedUpAtLeastOne() {
        assertThat(UploadLifecycleRule.days(Duration.ofHours(24))).isEqualTo(1);
        assertThat(UploadLifecycleRule.days(Duration.ofHours(25))).isEqualTo(2);
        assertThat(UploadLifecycleRule.days(Duration.ofMinutes(30))).isEqualTo(1);
    }

    private static LifecycleRule rule(String id, int days, LifecycleRuleFilter filter) {
        return LifecycleRule.builder().id(id).status(ExpirationStatus.ENABLED).filter(filter)
                .abortIncompleteMultipartUpload(AbortIncompleteMultipartUpload.builder().daysAfterInitiation(days).build()).build();
    }
}
