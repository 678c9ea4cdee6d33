package io.pg2lite.testkit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
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
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link HangingTransactions} on a real broker: a transaction its producer still has open is not
 * taken for a hanging one, and {@link HangingTransactions#abort} writes the marker that lets
 * read_committed readers past an open transaction (what the remedy does to a hanging one).
 */
@ExtendWith(TestStackExtension.class)
class HangingTransactionsIT {
  private final KafkaBroker kafka;

  HangingTransactionsIT(TestStack stack) {
    this.kafka = stack.kafka();
  }

  @Test
  void anOngoingTransactionIsNotHangingAndTheAbortUnblocksReaders() throws Exception {
    String topic = kafka.uniqueTopicName("hanging");
    kafka.createTopic(topic, 1);
    TopicPartition tp = new TopicPartition(topic, 0);
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-producer");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
        new StringSerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "k", "open")).get();
      producer.flush();
      assertEquals(0L, stableOffset(tp), "the open transaction holds the last stable offset");

      Await.during("an ongoing transaction never reported as hanging", Duration.ofSeconds(2),
          () -> find(topic).isEmpty());

      // Treat it as the remedy treats a hanging one: describeProducers names it, abort closes it.
      var state = kafka.admin().describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers().get(0);
      HangingTransactions.abort(kafka.admin(), List.of(new HangingTransactions.Hanging(tp, state.producerId(),
          state.producerEpoch(), state.coordinatorEpoch().orElse(0), state.currentTransactionStartOffset().getAsLong())));
      Await.until("the last stable offset past the aborted transaction", Duration.ofSeconds(30),
          () -> stableOffset(tp) >= 2);
      assertTrue(kafka.admin().describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers().stream()
          .allMatch(s -> s.currentTransactionStartOffset().isEmpty()), "no transaction open on the partition");
    }
  }

  private List<HangingTransactions.Hanging> find(String topic) {
    try {
      return HangingTransactions.find(kafka.admin(), List.of(topic), Duration.ZERO);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private long stableOffset(TopicPartition tp) {
    try {
      return kafka.admin().listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
          .partitionResult(tp).get().offset();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
