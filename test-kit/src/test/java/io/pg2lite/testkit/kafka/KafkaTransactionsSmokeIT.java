package io.pg2lite.testkit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The KRaft broker supports transactions: read_committed consumers see records only after commit. */
@ExtendWith(TestStackExtension.class)
class KafkaTransactionsSmokeIT {
  private final KafkaBroker kafka;

  KafkaTransactionsSmokeIT(TestStack stack) {
    this.kafka = stack.kafka();
  }

  @Test
  void transactionalRecordsAreSeenOnlyAfterCommit() throws Exception {
    String topic = kafka.uniqueTopicName("smoke-tx");
    kafka.createTopic(topic, 1);
    try (KafkaProducer<String, String> producer = transactionalProducer("smoke-tx-producer");
        TopicReader committed = new TopicReader(kafka.bootstrapServers(), topic);
        TopicReader uncommitted = new TopicReader(kafka.bootstrapServers(), topic, "read_uncommitted")) {
      producer.initTransactions();

      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "k", "aborted")).get();
      producer.abortTransaction();

      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "k", "one")).get();
      producer.send(new ProducerRecord<>(topic, "k", "two")).get();
      producer.flush();
      // The open transaction's records are in the log (read_uncommitted sees them) but hidden
      // from read_committed until the commit marker is written.
      List<ConsumerRecord<byte[], byte[]>> raw = uncommitted.read(3, Duration.ofSeconds(20));
      assertEquals(List.of("aborted", "one", "two"), values(raw));
      assertTrue(committed.readFor(Duration.ofMillis(500)).isEmpty(), "nothing visible before commit");

      producer.commitTransaction();
      List<ConsumerRecord<byte[], byte[]>> visible = committed.read(2, Duration.ofSeconds(20));
      assertEquals(List.of("one", "two"), values(visible), "the aborted record never shows");
    }
  }

  private KafkaProducer<String, String> transactionalProducer(String transactionalId) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return new KafkaProducer<>(props);
  }

  private static List<String> values(List<ConsumerRecord<byte[], byte[]>> records) {
    return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
  }
}
