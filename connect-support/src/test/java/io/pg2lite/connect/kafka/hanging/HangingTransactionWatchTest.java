package io.pg2lite.connect.kafka.hanging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.support.RecordingLogger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * When the watch reports, ends and aborts, on scripted looks and a clock moved by hand: the rule's
 * Kafka side is {@link HangingTransactionRuleIT}'s (the rule) and connector-sink's
 * {@code HangingTransactionsIT}'s (the watch, end to end).
 */
class HangingTransactionWatchTest {
  private static final HangingTransaction H = new HangingTransaction(new TopicPartition("log", 0), 1, 16, 7, 412,
      0, "no coordinator has a transaction of producer 1");
  private static final Object NOT_NOW = new Object();

  private final RecordingLogger lines = new RecordingLogger();
  private final Script looks = new Script();
  private long nanos;
  private long millis = 100_000;

  /** Each look takes the next outcome: a finding, {@link #NOT_NOW}, or an exception to throw. */
  private static final class Script implements TransactionLooks {
    final Deque<Object> outcomes = new ArrayDeque<>();
    final List<HangingTransaction> aborted = new ArrayList<>();
    Exception abortFailure;

    @Override
    public Optional<List<HangingTransaction>> look() throws Exception {
      Object o = outcomes.removeFirst();
      if (o instanceof Exception e) {
        throw e;
      }
      @SuppressWarnings("unchecked")
      Optional<List<HangingTransaction>> found =
          o == NOT_NOW ? Optional.empty() : Optional.of((List<HangingTransaction>) o);
      return found;
    }

    @Override
    public void abort(HangingTransaction h) throws Exception {
      if (abortFailure != null) {
        throw abortFailure;
      }
      aborted.add(h);
    }

    @Override
    public String watched() {
      return "log";
    }

    @Override
    public void close() {}
  }

  private HangingTransactionWatch watch(boolean abort) {
    return new HangingTransactionWatch(looks, new HangingTransactionWatch.Settings("sink connector s", "b:9092", abort,
        "hanging.transactions.abort"), lines, () -> nanos, () -> millis);
  }

  /** Runs one look per outcome, {@code seconds} apart. */
  private void looks(HangingTransactionWatch w, long seconds, Object... outcomes) {
    for (Object o : outcomes) {
      looks.outcomes.add(o);
      w.lookNow();
      nanos += seconds * 1_000_000_000L;
      millis += seconds * 1_000L;
    }
  }

  @Test
  void aTransactionIsReportedOnceWhenASecondLookTenSecondsLaterStillFindsItAndItsEndIsLogged() {
    HangingTransactionWatch w = watch(false);
    looks(w, 5, List.of(H), List.of(H));
    assertEquals(0, w.getHangingTransactions(), "5 s apart: not yet");
    looks(w, 10, List.of(H));
    assertEquals(List.of(H), w.reported());
    looks(w, 10, List.of(H), List.of(H));
    List<String> warned = lines.at(Level.WARN);
    assertEquals(1, warned.size(), "once: " + lines.lines());
    assertEquals("WARN Hanging Kafka transaction on log-0, seen by the sink connector s: producer 1 epoch 16 has "
        + "held it open since offset 412 and has not written for 110 s, but no coordinator has a transaction of "
        + "producer 1. Nothing will end it: every read_committed reader of log-0 waits behind it (a source connector "
        + "whose offsets it holds cannot start; a sink reading it stalls). Runbook: " + Runbook.SECTION + ". To "
        + "abort it: kafka-transactions.sh --bootstrap-server b:9092 abort --topic log --partition 0 --start-offset "
        + "412 (or set hanging.transactions.abort=true)", warned.get(0));
    looks(w, 10, List.of());
    assertEquals(0, w.getHangingTransactions());
    assertTrue(lines.at(Level.INFO).get(0).contains("on log-0 (producer 1, open since offset 412) is no longer open"),
        lines.lines().toString());
  }

  @Test
  void aCandidateGoneByTheSecondLookIsNeverReported() {
    HangingTransactionWatch w = watch(false);
    looks(w, 10, List.of(H), List.of(), List.of(H));
    assertEquals(0, w.getHangingTransactions());
    assertTrue(lines.lines().isEmpty(), lines.lines().toString());
  }

  @Test
  void aFailedLookReportsNothingAndIsLoggedAtInfoAtMostOnceAMinute() {
    HangingTransactionWatch w = watch(false);
    Exception loading = new TimeoutException("coordinator loading");
    looks(w, 10, List.of(H), loading, loading, loading, loading, loading, loading, loading);
    assertEquals(0, w.getHangingTransactions(), "nothing on failed looks");
    assertEquals(2, lines.at(Level.INFO).size(), "70 s of failures: two INFO lines: " + lines.lines());
    assertEquals(5, lines.at(Level.DEBUG).size());
    assertTrue(lines.at(Level.INFO).get(0).endsWith("the next is in 10 s: coordinator loading"),
        lines.lines().get(0));
    looks(w, 10, List.of(H));
    assertEquals(List.of(H), w.reported(), "the first sighting still counts after the failures");
  }

  @Test
  void aRefusedAclIsOneWarningNamingIt() {
    HangingTransactionWatch w = watch(false);
    Exception refused = new MissingAclException("Read on Topic log", new TopicAuthorizationException("denied"));
    looks(w, 10, refused, refused, refused);
    assertEquals(1, lines.at(Level.WARN).size(), lines.lines().toString());
    assertTrue(lines.at(Level.WARN).get(0).contains("Grant Read on Topic log to this client's principal"),
        lines.lines().toString());
  }

  @Test
  void aLookThatIsNotDueKeepsWhatWasSeen() {
    HangingTransactionWatch w = watch(false);
    looks(w, 10, List.of(H), List.of(H), NOT_NOW, NOT_NOW);
    assertEquals(List.of(H), w.reported(), "reported, and not ended by looks that did not look");
  }

  @Test
  void withTheAbortOnWhatIsReportedIsAbortedAtOnce() {
    HangingTransactionWatch w = watch(true);
    looks(w, 10, List.of(H), List.of(H));
    assertEquals(List.of(H), looks.aborted);
    assertEquals(1, w.getHangingTransactionsAbortedTotal());
    assertEquals(0, w.getHangingTransactions());
    assertTrue(lines.at(Level.WARN).get(0).endsWith("(hanging.transactions.abort=true: aborting it now)"));
    assertTrue(lines.at(Level.INFO).get(0).startsWith("INFO Aborted the hanging Kafka transaction on log-0"));
    looks(w, 10, List.of());
    assertEquals(1, lines.at(Level.INFO).size(), "no end line for what it aborted itself: " + lines.lines());
  }

  @Test
  void anAbortRefusedIsOneWarningNamingTheAclAndTheTransactionStaysReported() {
    HangingTransactionWatch w = watch(true);
    looks.abortFailure = new MissingAclException("Alter on Cluster (or ClusterAction on Cluster)",
        new org.apache.kafka.common.errors.ClusterAuthorizationException("denied"));
    looks(w, 10, List.of(H), List.of(H), List.of(H));
    assertEquals(List.of(H), w.reported());
    assertEquals(0, w.getHangingTransactionsAbortedTotal());
    List<String> warned = lines.at(Level.WARN);
    assertEquals(2, warned.size(), "the report and one refusal: " + lines.lines());
    assertTrue(warned.get(1).contains("Grant Alter on Cluster (or ClusterAction on Cluster)"), warned.get(1));
  }
}
