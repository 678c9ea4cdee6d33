package io.pg2lite.connect.kafka.hanging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.kafka.KafkaBroker;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.RecordingLogger;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * The watch on a real broker of its own, whose transaction coordinator is made to forget a
 * transaction left open ({@link KafkaBroker#forgetTransactions}): the state a broker restart left
 * in ADR 0018. The forgotten transaction is reported once, within a minute of its producer's last
 * write, with the runbook step; a transaction its coordinator still has open, idle as long, is
 * not; the abort lets read_committed readers past it, and the watch reports its end.
 */
class HangingTransactionWatchIT {
  private static final Duration WITHIN = Duration.ofSeconds(60);

  @Test
  void aForgottenTransactionIsReportedWithinAMinuteAndItsAbortEndsIt() throws Exception {
    try (KafkaBroker kafka = KafkaBroker.startDedicated()) {
      kafka.createTopic("log", 1);
      kafka.createTopic("live", 1);
      TopicPartition log = new TopicPartition("log", 0);
      RecordingLogger lines = new RecordingLogger();
      KafkaProducer<String, String> forgotten = producer(kafka, "forgotten");
      forgotten.send(new ProducerRecord<>("log", "k", "never committed")).get();
      forgotten.close(Duration.ZERO); // forced: a graceful close would abort its transaction
      long lastWrite = System.currentTimeMillis();
      kafka.forgetTransactions();
      try (KafkaProducer<String, String> live = producer(kafka, "live");
          HangingTransactionWatch watch = new HangingTransactionWatch(AdminTransactionLooks.create("test",
              Map.of("bootstrap.servers", kafka.bootstrapServers()),
              () -> new AdminTransactionLooks.Watched(Set.of("log", "live"), Set.of("live")), LookGate.ALWAYS),
              new HangingTransactionWatch.Settings("test", kafka.bootstrapServers(), false, "abort"), lines)) {
        // Open, and idle from now on, but its coordinator has it Ongoing: never hanging.
        live.send(new ProducerRecord<>("live", "k", "open")).get();
        live.flush();
        watch.start();

        Await.until("the forgotten transaction reported", WITHIN.minusMillis(System.currentTimeMillis() - lastWrite),
            () -> watch.getHangingTransactions() > 0);
        long reportedAfter = System.currentTimeMillis() - lastWrite;
        System.out.println("HangingTransactionWatchIT: reported " + reportedAfter + " ms after the producer's last "
            + "write: " + watch.reported());
        HangingTransaction h = watch.reported().get(0);
        assertEquals(List.of(log), watch.reported().stream().map(HangingTransaction::partition).toList());
        assertEquals(0, h.startOffset());
        List<String> warned = lines.at(Level.WARN);
        assertEquals(1, warned.size(), lines.lines().toString());
        for (String part : List.of("log-0", "producer " + h.producerId() + " epoch " + h.producerEpoch(),
            "since offset 0", "no coordinator has a transaction of producer " + h.producerId(), Runbook.SECTION,
            "kafka-transactions.sh --bootstrap-server " + kafka.bootstrapServers()
                + " abort --topic log --partition 0 --start-offset 0")) {
          assertTrue(warned.get(0).contains(part), "'" + part + "' in: " + warned.get(0));
        }
        assertEquals(0, stableOffset(kafka, log), "the forgotten transaction pins the last stable offset");

        HangingTransactionRule.abort(kafka.admin(), h);
        Await.until("the last stable offset past the aborted transaction", Duration.ofSeconds(30),
            () -> stableOffset(kafka, log) >= 2);
        Await.until("its end reported", Duration.ofSeconds(30), () -> watch.getHangingTransactions() == 0);
        assertTrue(lines.at(Level.INFO).stream().anyMatch(l -> l.contains("on log-0") && l.contains("no longer open")),
            lines.lines().toString());
        assertEquals(1, lines.at(Level.WARN).size(), "reported once: " + lines.lines());
      }
    }
  }

  private static KafkaProducer<String, String> producer(KafkaBroker kafka, String transactionalId) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "300000"); // the live one stays open through the test
    KafkaProducer<String, String> p = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    p.initTransactions();
    p.beginTransaction();
    return p;
  }

  private static long stableOffset(KafkaBroker kafka, TopicPartition tp) {
    try {
      return kafka.admin().listOffsets(Map.of(tp, OffsetSpec.latest()),
          new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(tp).get().offset();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
