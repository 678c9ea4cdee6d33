package io.pg2lite.connect.kafka.hanging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The rule that tells a hanging transaction from one its coordinator still has open. */
class HangingTransactionRuleTest {
  private static final TopicPartition LOG = new TopicPartition("log", 0);
  private static final TopicPartition OFFSETS = new TopicPartition("offsets", 0);
  /** The producers below last wrote at 1,000; the rule asks for idle since 5,000. */
  private static final long IDLE_SINCE = 5_000;
  private static final String ID = "pg2lite-connect-1-src-0";

  private static ProducerState openFrom(long producerId, int epoch, long start) {
    return new ProducerState(producerId, epoch, 3, 1_000L, OptionalInt.of(7), OptionalLong.of(start));
  }

  private static Map<String, TransactionDescription> coordinator(long producerId, TransactionState state,
      TopicPartition... tps) {
    return Map.of(ID, new TransactionDescription(0, state, producerId, 18, 15_000, OptionalLong.empty(), Set.of(tps)));
  }

  private static HangingTransaction hanging(TopicPartition tp, long producerId, int epoch, long start, String says) {
    return new HangingTransaction(tp, producerId, epoch, 7, start, 1_000L, says);
  }

  @Test
  void anOpenTransactionItsCoordinatorHasOpenOnThePartitionIsNotHanging() {
    for (TransactionState state : List.of(TransactionState.ONGOING, TransactionState.PREPARE_COMMIT,
        TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE)) {
      assertEquals(List.of(), HangingTransactionRule.hanging(Map.of(LOG, List.of(openFrom(1, 16, 412))),
          coordinator(1, state, LOG, OFFSETS), IDLE_SINCE), state.toString());
    }
  }

  /** What the broker-restart test met (ADR 0018): the coordinator has the id Empty at a later epoch. */
  @Test
  void anOpenTransactionItsCoordinatorHasClosedIsHanging() {
    String says = "its coordinator has transactional id " + ID + " Empty at epoch 18, open on no partition";
    assertEquals(List.of(hanging(LOG, 1, 16, 412, says), hanging(OFFSETS, 1, 16, 32, says)),
        HangingTransactionRule.hanging(Map.of(LOG, List.of(openFrom(1, 16, 412)),
            OFFSETS, List.of(openFrom(1, 16, 32))), coordinator(1, TransactionState.EMPTY), IDLE_SINCE));
  }

  @Test
  void anOpenTransactionOnAPartitionItsCoordinatorDoesNotListIsHanging() {
    assertEquals(List.of(hanging(OFFSETS, 1, 16, 32,
            "its coordinator has transactional id " + ID + " Ongoing at epoch 18, open on [log-0]")),
        HangingTransactionRule.hanging(Map.of(OFFSETS, List.of(openFrom(1, 16, 32))),
            coordinator(1, TransactionState.ONGOING, LOG), IDLE_SINCE));
  }

  @Test
  void anOpenTransactionOfAProducerNoCoordinatorKnowsIsHanging() {
    assertEquals(List.of(hanging(LOG, 5, 0, 9, "no coordinator has a transaction of producer 5")),
        HangingTransactionRule.hanging(Map.of(LOG, List.of(openFrom(5, 0, 9))), Map.of(), IDLE_SINCE));
  }

  /** A coordinator that does not answer for a moment must not make a live transaction hang. */
  @Test
  void aTransactionWrittenToSinceTheIdleBoundIsNeverHanging() {
    ProducerState recent = new ProducerState(5, 0, 3, 6_000L, OptionalInt.of(7), OptionalLong.of(9));
    assertEquals(List.of(), HangingTransactionRule.hanging(Map.of(LOG, List.of(recent)), Map.of(), IDLE_SINCE));
  }

  @Test
  void aProducerWithNoOpenTransactionIsNeverHanging() {
    ProducerState idle = new ProducerState(1, 16, 3, 1_000L, OptionalInt.empty(), OptionalLong.empty());
    assertEquals(List.of(), HangingTransactionRule.hanging(Map.of(LOG, List.of(idle)), Map.of(), IDLE_SINCE));
  }
}
