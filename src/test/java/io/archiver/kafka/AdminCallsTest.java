package io.archiver.kafka;

import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AdminCallsTest {

    @Test
    void aCallFailingRetriablyIsMadeAgainUntilItIsAnswered() throws Exception {
        List<Integer> attempts = new ArrayList<>();
        String answer = AdminCalls.retried("a group's offsets", Duration.ofSeconds(30), ms -> {
            attempts.add(ms);
            return attempts.size() < 3 ? failed(new CoordinatorNotAvailableException("moving")) : KafkaFuture.completedFuture("placed");
        });
        assertThat(answer).isEqualTo("placed");
        assertThat(attempts).hasSize(3).allMatch(ms -> ms > 0 && ms <= 10_000);
    }

    @Test
    void aCallWithoutAnswerIsAbandonedAndMadeAgainWithinTheDeadline() throws Exception {
        List<Integer> attempts = new ArrayList<>();
        String answer = AdminCalls.retried("which transactions are open", Duration.ofSeconds(30), Duration.ofMillis(200), ms -> {
            attempts.add(ms);
            return attempts.size() == 1 ? new KafkaFutureImpl<>() : KafkaFuture.completedFuture("none");
        });
        assertThat(answer).isEqualTo("none");
        assertThat(attempts).containsExactly(200, 200);
    }

    @Test
    void aFailureThatRetryingCannotMendIsThrownAtOnce() {
        List<Integer> attempts = new ArrayList<>();
        assertThatThrownBy(() -> AdminCalls.retried("a group's offsets", Duration.ofSeconds(30), ms -> {
            attempts.add(ms);
            return failed(new GroupAuthorizationException("not allowed"));
        })).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(GroupAuthorizationException.class);
        assertThat(attempts).hasSize(1);
    }

    @Test
    void pastTheDeadlineTheTimeoutNamesTheCall() {
        // each attempt is given what is left of the deadline at most
        assertThatThrownBy(() -> AdminCalls.retried("which transactions are open", Duration.ofMillis(300), ms -> new KafkaFutureImpl<String>()))
                .isInstanceOf(TimeoutException.class).hasMessage("Kafka did not answer which transactions are open within 300 ms");
    }

    private static <T> KafkaFuture<T> failed(Exception e) {
        KafkaFutureImpl<T> future = new KafkaFutureImpl<>();
        future.completeExceptionally(e);
        return future;
    }
}
