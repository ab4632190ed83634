package dev.insync.replication.netty.client;

import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.log.Errors;
import dev.insync.replication.netty.client.ProduceFailedException.Written;
import dev.insync.replication.netty.protocol.ErrorCodes;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which failures the client resends: one test per case (docs/client.md, "Retries"). */
class ProduceRetryPolicyTest {

    private static ProduceRetryPolicy.Decision refusedBeforeAppend(Errors e) {
        return ProduceRetryPolicy.forAnswer(ProduceResult.failed(e));
    }

    private static ProduceRetryPolicy.Decision afterAppend(Errors e) {
        return ProduceRetryPolicy.forAnswer(new ProduceResult(e, 42L, -1L, 3));
    }

    @Test
    @DisplayName("PRO-2 NOT_LEADER_OR_FOLLOWER before the append: retried after learning the leader again")
    void notLeaderBeforeAppend() {
        assertThat(refusedBeforeAppend(Errors.NOT_LEADER_OR_FOLLOWER))
                .isEqualTo(new ProduceRetryPolicy.Decision(true, true, Errors.NOT_LEADER_OR_FOLLOWER, Written.NO));
    }

    @Test
    @DisplayName("PRO-2 NOT_ENOUGH_REPLICAS (refused before the write): retried, the ISR may grow back")
    void notEnoughReplicas() {
        assertThat(refusedBeforeAppend(Errors.NOT_ENOUGH_REPLICAS))
                .isEqualTo(new ProduceRetryPolicy.Decision(true, false, Errors.NOT_ENOUGH_REPLICAS, Written.NO));
    }

    @Test
    @DisplayName("UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH before the append: retried with a metadata refresh")
    void staleMetadataErrors() {
        for (Errors e : new Errors[] {Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.FENCED_LEADER_EPOCH, Errors.UNKNOWN_LEADER_EPOCH}) {
            assertThat(refusedBeforeAppend(e)).as(e.name()).isEqualTo(new ProduceRetryPolicy.Decision(true, true, e, Written.NO));
        }
    }

    @Test
    @DisplayName("PRO-3 NOT_ENOUGH_REPLICAS_AFTER_APPEND: never retried (Kafka's producer would, and may duplicate); reported as appended")
    void notEnoughReplicasAfterAppend() {
        assertThat(afterAppend(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND).retry()).isFalse();
        assertThat(afterAppend(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND).written()).isEqualTo(Written.APPENDED);
        assertThat(refusedBeforeAppend(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND).written())
                .as("the error itself says the records are in the log").isEqualTo(Written.APPENDED);
    }

    @Test
    @DisplayName("PRO-3 acks=all REQUEST_TIMED_OUT after the append: not retried, appended")
    void ackTimeoutAfterAppend() {
        assertThat(afterAppend(Errors.REQUEST_TIMED_OUT))
                .isEqualTo(new ProduceRetryPolicy.Decision(false, false, Errors.REQUEST_TIMED_OUT, Written.APPENDED));
    }

    @Test
    @DisplayName("PRO-3 leadership lost while an acks=all produce waited (NOT_LEADER_OR_FOLLOWER with offsets): not retried, appended")
    void notLeaderAfterAppend() {
        ProduceRetryPolicy.Decision d = afterAppend(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(d.retry()).isFalse();
        assertThat(d.refreshMetadata()).isTrue();
        assertThat(d.written()).isEqualTo(Written.APPENDED);
    }

    @Test
    @DisplayName("LOG-5 PRO-1 validation errors (CORRUPT_MESSAGE, MESSAGE_TOO_LARGE, INVALID_RECORD, INVALID_REQUIRED_ACKS): not retried, not written")
    void fatalValidationErrors() {
        for (Errors e : new Errors[] {Errors.CORRUPT_MESSAGE, Errors.MESSAGE_TOO_LARGE, Errors.INVALID_RECORD,
                Errors.INVALID_REQUIRED_ACKS, Errors.RECORD_LIST_TOO_LARGE}) {
            assertThat(refusedBeforeAppend(e)).as(e.name()).isEqualTo(new ProduceRetryPolicy.Decision(false, false, e, Written.NO));
        }
    }

    @Test
    @DisplayName("KAFKA_STORAGE_ERROR and UNKNOWN_SERVER_ERROR: not retried, fate unknown (the bytes may survive recovery)")
    void unknownFate() {
        assertThat(refusedBeforeAppend(Errors.KAFKA_STORAGE_ERROR))
                .isEqualTo(new ProduceRetryPolicy.Decision(false, true, Errors.KAFKA_STORAGE_ERROR, Written.UNKNOWN));
        assertThat(refusedBeforeAppend(Errors.UNKNOWN_SERVER_ERROR).retry()).isFalse();
        assertThat(refusedBeforeAppend(Errors.UNKNOWN_SERVER_ERROR).written()).isEqualTo(Written.UNKNOWN);
    }

    @Test
    @DisplayName("NET-2 a connection that failed before the request was written: retried")
    void disconnectedBeforeSend() {
        assertThat(ProduceRetryPolicy.forFailure(new CompletionException(DisconnectedException.notSent("refused"))))
                .isEqualTo(new ProduceRetryPolicy.Decision(true, true, Errors.NETWORK_EXCEPTION, Written.NO));
    }

    @Test
    @DisplayName("NET-2 a connection lost with the request in flight: not retried, fate unknown")
    void disconnectedAfterSend() {
        assertThat(ProduceRetryPolicy.forFailure(new DisconnectedException("closed")))
                .isEqualTo(new ProduceRetryPolicy.Decision(false, true, Errors.NETWORK_EXCEPTION, Written.UNKNOWN));
    }

    @Test
    @DisplayName("NET-2 request.timeout.ms passed without an answer: not retried, fate unknown")
    void timeout() {
        assertThat(ProduceRetryPolicy.forFailure(new TimeoutException("late")))
                .isEqualTo(new ProduceRetryPolicy.Decision(false, true, Errors.REQUEST_TIMED_OUT, Written.UNKNOWN));
    }

    @Test
    @DisplayName("NET-1 SEC-2 a request refused as a whole before any handler (UNSUPPORTED_VERSION, CLUSTER_AUTHORIZATION_FAILED): not retried, not written")
    void refusedAsAWhole() {
        for (short code : new short[] {ErrorCodes.UNSUPPORTED_VERSION, ErrorCodes.CLUSTER_AUTHORIZATION_FAILED}) {
            ProduceRetryPolicy.Decision d = ProduceRetryPolicy.forFailure(new RequestFailedException("Produce", "b", code));
            assertThat(d.retry()).isFalse();
            assertThat(d.written()).isEqualTo(Written.NO);
        }
        assertThat(ProduceRetryPolicy.forFailure(new RequestFailedException("Produce", "b", (short) -1)).written())
                .as("the handler failed: unknown").isEqualTo(Written.UNKNOWN);
    }

    @Test
    @DisplayName("a success is not a failure to classify")
    void successIsRefused() {
        assertThatThrownBy(() -> ProduceRetryPolicy.forAnswer(new ProduceResult(Errors.NONE, 0, -1, 0)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
