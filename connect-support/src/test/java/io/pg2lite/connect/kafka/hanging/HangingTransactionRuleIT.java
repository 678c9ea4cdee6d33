package io.pg2lite.connect.kafka.hanging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.kafka.KafkaBroker;
import io.pg2lite.testkit.support.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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
 * The rule on a real broker of its own, whose transaction coordinator is made to forget a
 * transaction left open ({@link KafkaBroker#forgetTransactions}): the state a broker restart left
 * in ADR 0018. The forgotten transaction is found; a transaction its coordinator still has open,
 * idle as long, is not; the abort lets read_committed readers past it, and it is found no more.
 * The watch's timing (reported within a minute, once, with the runbook step) is proven end to end
 * by connector-sink's {@code HangingTransactionsIT}; here the rule is asked at once (no idle
 * threshold), so the test takes seconds, not the watch's 40.
 */
class HangingTransactionRuleIT {
  @Test
  void aForgottenTransactionIsFoundALiveOneIsNotAndTheAbortEndsIt() throws Exception {
    try (KafkaBroker kafka = KafkaBroker.startDedicated()) {
      kafka.createTopic("log", 1);
      kafka.createTopic("live", 1);
      TopicPartition log = new TopicPartition("log", 0);
      TopicPartition liveLog = new TopicPartition("live", 0);
      KafkaProducer<String, String> forgotten = producer(kafka, "forgotten");
      forgotten.send(new ProducerRecord<>("log", "k", "never committed")).get();
      forgotten.close(Duration.ZERO); // forced: a graceful close would abort its transaction
      kafka.forgetTransactions();
      try (KafkaProducer<String, String> live = producer(kafka, "live")) {
        // Open, and idle from now on, but its coordinator has it Ongoing: never hanging.
        live.send(new ProducerRecord<>("live", "k", "open")).get();
        live.flush();
        List<HangingTransaction> found = Await.value("the forgotten transaction found", Duration.ofSeconds(30),
            () -> {
              try {
                List<HangingTransaction> f = HangingTransactionRule.find(kafka.admin(), List.of(log, liveLog),
                    List.of("live"), Duration.ZERO, System.currentTimeMillis());
                return f.isEmpty() ? null : f;
              } catch (Exception e) {
                throw new IllegalStateException(e); // a coordinator still loading: ask again
              }
            });
        assertEquals(List.of(log), found.stream().map(HangingTransaction::partition).toList(),
            "only the forgotten one: " + found);
        HangingTransaction h = found.get(0);
        assertEquals(0, h.startOffset());
        assertEquals(0, stableOffset(kafka, log), "the forgotten transaction pins the last stable offset");
        assertTrue(stableOffset(kafka, liveLog) == 0, "the live one holds its partition too, and is not reported");

        HangingTransactionRule.abort(kafka.admin(), h);
        Await.until("the last stable offset past the aborted transaction", Duration.ofSeconds(30),
            () -> stableOffset(kafka, log) >= 2);
        assertEquals(List.of(), HangingTransactionRule.find(kafka.admin(), List.of(log, liveLog), List.of("live"),
            Duration.ZERO, System.currentTimeMillis()), "nothing hanging after the abort");
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
