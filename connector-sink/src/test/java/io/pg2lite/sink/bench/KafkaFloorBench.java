package io.pg2lite.sink.bench;

import io.pg2lite.testkit.support.Percentiles;
import io.pg2lite.testkit.kafka.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What one record costs Kafka alone on this machine, with nothing of pg2lite: the floor under the
 * pipeline's two Kafka stages (the source's "handed → acknowledged by Kafka" and the sink's
 * "postgres commit → fetched" after it). One producer ({@code linger.ms=0}, {@code acks=all}) and
 * one read_committed consumer on the test broker, in this JVM; one 100-byte record at a time, the
 * next {@code -Dpg2lite.bench.gapMs} (default 100) after the last was consumed. Prints send →
 * acknowledged and send → consumed, p50 and p99, for the first 200 records (cold code) and for 200
 * after {@code -Dpg2lite.bench.warmup} (default 5,000) more at a 1 ms gap (warm):
 * {@code java -cp <test classpath> io.pg2lite.sink.bench.KafkaFloorBench}.
 *
 * <p>{@code -Dpg2lite.bench.transactional=true} measures what an exactly-once source pays instead:
 * each record in a Kafka transaction of its own that also writes one record to a second topic, as
 * Connect writes the source offsets in the same transaction, then commits it; "acknowledged" is then
 * {@code commitTransaction} returned. {@code -Dpg2lite.bench.fetchWaitMs} sets the consumer's
 * {@code fetch.max.wait.ms} (default 500, Kafka's).
 */
public final class KafkaFloorBench {
  private static final int MEASURED = 200;

  public static void main(String[] args) throws Exception {
    long gapMs = Long.getLong("pg2lite.bench.gapMs", 100);
    int warmup = Integer.getInteger("pg2lite.bench.warmup", 5000);
    boolean transactional = Boolean.getBoolean("pg2lite.bench.transactional");
    int fetchWaitMs = Integer.getInteger("pg2lite.bench.fetchWaitMs", 500);
    try (KafkaBroker kafka = KafkaBroker.start()) {
      String topic = kafka.uniqueTopicName("floor");
      kafka.createTopic(topic, 1);
      String offsets = transactional ? kafka.uniqueTopicName("floor-offsets") : null;
      if (offsets != null) {
        kafka.createTopic(offsets, 1);
      }
      Map<String, Object> p = new HashMap<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
          ProducerConfig.LINGER_MS_CONFIG, 0, ProducerConfig.ACKS_CONFIG, "all",
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
      if (transactional) {
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "floor");
      }
      Map<String, Object> c = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
          ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, fetchWaitMs,
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
          KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
        TopicPartition tp = new TopicPartition(topic, 0);
        Sender send = new Sender(producer, topic, offsets);
        if (transactional) {
          producer.initTransactions();
        }
        send.one(); // metadata, producer id
        consumer.assign(List.of(tp));
        consumer.seekToEnd(List.of(tp));
        consumer.position(tp);
        System.out.printf("one 100-byte record at a time, %d ms apart, %s, consumer fetch.max.wait.ms=%d%n", gapMs,
            transactional ? "each in a Kafka transaction with a second topic's record" : "no transactions", fetchWaitMs);
        round("cold (first " + MEASURED + ")", send, consumer, MEASURED, gapMs);
        round("warm-up (not counted)", send, consumer, warmup, 1);
        round("warm (after " + warmup + " more)", send, consumer, MEASURED, gapMs);
      }
    }
  }

  /** One record, acknowledged: alone, or in a transaction with an offsets-like record, committed. */
  private record Sender(KafkaProducer<byte[], byte[]> producer, String topic, String offsets) {
    void one() throws Exception {
      if (offsets == null) {
        producer.send(new ProducerRecord<>(topic, 0, null, new byte[100])).get();
        return;
      }
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, 0, null, new byte[100]));
      producer.send(new ProducerRecord<>(offsets, 0, null, new byte[60]));
      producer.commitTransaction();
    }
  }

  private static void round(String name, Sender send, KafkaConsumer<byte[], byte[]> consumer, int records,
      long gapMs) throws Exception {
    List<Double> acked = new ArrayList<>();
    List<Double> consumed = new ArrayList<>();
    for (int i = 0; i < records; i++) {
      long t0 = System.nanoTime();
      send.one();
      long t1 = System.nanoTime();
      int n = 0;
      while (n == 0) {
        n = consumer.poll(Duration.ofMillis(100)).count();
      }
      long t2 = System.nanoTime();
      acked.add((t1 - t0) / 1e6);
      consumed.add((t2 - t0) / 1e6);
      LockSupport.parkNanos(gapMs * 1_000_000);
    }
    if (name.startsWith("warm-up")) {
      return;
    }
    Collections.sort(acked);
    Collections.sort(consumed);
    System.out.printf("%-28s send -> acknowledged p50 %.2f ms, p99 %.2f ms; send -> consumed p50 %.2f ms, p99 %.2f ms%n",
        name, Percentiles.of(acked, 50), Percentiles.of(acked, 99), Percentiles.of(consumed, 50), Percentiles.of(consumed, 99));
  }

}
