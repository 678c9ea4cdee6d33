package io.pg2lite.testkit.kafka;

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
class HangingTransactionsTest {
  private static final TopicPartition LOG = new TopicPartition("log", 0);
  private static final TopicPartition OFFSETS = new TopicPartition("offsets", 0);
  /** The producers below last wrote at 1,000; the rule asks for idle since 5,000. */
  private static final long NOW = 5_000;

  private static ProducerState openFrom(long producerId, int epoch, long start) {
    return new ProducerState(producerId, epoch, 3, 1_000L, OptionalInt.of(7), OptionalLong.of(start));
  }

  private static TransactionDescription coordinator(long producerId, TransactionState state, TopicPartition... tps) {
    return new TransactionDescription(0, state, producerId, 18, 15_000, OptionalLong.empty(), Set.of(tps));
  }

  @Test
  void anOpenTransactionItsCoordinatorHasOpenOnThePartitionIsNotHanging() {
    for (TransactionState state : List.of(TransactionState.ONGOING, TransactionState.PREPARE_COMMIT,
        TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE)) {
      assertEquals(List.of(), HangingTransactions.hanging(Map.of(LOG, List.of(openFrom(1, 16, 412))),
          List.of(coordinator(1, state, LOG, OFFSETS)), NOW), state.toString());
    }
  }

  /** What the broker-restart test met: the coordinator has the id Empty at a later epoch. */
  @Test
  void anOpenTransactionItsCoordinatorHasClosedIsHanging() {
    List<HangingTransactions.Hanging> found = HangingTransactions.hanging(
        Map.of(LOG, List.of(openFrom(1, 16, 412)), OFFSETS, List.of(openFrom(1, 16, 32))),
        List.of(coordinator(1, TransactionState.EMPTY)), NOW);
    assertEquals(Set.of(new HangingTransactions.Hanging(LOG, 1, 16, 7, 412),
        new HangingTransactions.Hanging(OFFSETS, 1, 16, 7, 32)), Set.copyOf(found));
  }

  @Test
  void anOpenTransactionOnAPartitionItsCoordinatorDoesNotListIsHanging() {
    assertEquals(List.of(new HangingTransactions.Hanging(OFFSETS, 1, 16, 7, 32)),
        HangingTransactions.hanging(Map.of(OFFSETS, List.of(openFrom(1, 16, 32))),
            List.of(coordinator(1, TransactionState.ONGOING, LOG)), NOW));
  }

  @Test
  void anOpenTransactionOfAProducerNoCoordinatorKnowsIsHanging() {
    assertEquals(List.of(new HangingTransactions.Hanging(LOG, 5, 0, 7, 9)),
        HangingTransactions.hanging(Map.of(LOG, List.of(openFrom(5, 0, 9))), List.of(), NOW));
  }

  /** A coordinator that does not answer for a moment must not make a live transaction hang. */
  @Test
  void aTransactionWrittenToSinceTheIdleBoundIsNeverHanging() {
    ProducerState recent = new ProducerState(5, 0, 3, 6_000L, OptionalInt.of(7), OptionalLong.of(9));
    assertEquals(List.of(), HangingTransactions.hanging(Map.of(LOG, List.of(recent)), List.of(), NOW));
  }

  @Test
  void aProducerWithNoOpenTransactionIsNeverHanging() {
    ProducerState idle = new ProducerState(1, 16, 3, 1_000L, OptionalInt.empty(), OptionalLong.empty());
    assertEquals(List.of(), HangingTransactions.hanging(Map.of(LOG, List.of(idle)), List.of(), NOW));
  }
}
