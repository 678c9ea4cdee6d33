package io.pg2lite.sink.bench;

import io.pg2lite.testkit.support.Percentiles;
import io.pg2lite.testkit.kafka.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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
 */
public final class KafkaFloorBench {
  private static final int MEASURED = 200;

  public static void main(String[] args) throws Exception {
    long gapMs = Long.getLong("pg2lite.bench.gapMs", 100);
    int warmup = Integer.getInteger("pg2lite.bench.warmup", 5000);
    try (KafkaBroker kafka = KafkaBroker.start()) {
      String topic = kafka.uniqueTopicName("floor");
      kafka.createTopic(topic, 1);
      Map<String, Object> p = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
          ProducerConfig.LINGER_MS_CONFIG, 0, ProducerConfig.ACKS_CONFIG, "all",
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
      Map<String, Object> c = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
          ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500,
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
          KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
        TopicPartition tp = new TopicPartition(topic, 0);
        producer.send(new ProducerRecord<>(topic, 0, null, new byte[100])).get(); // metadata, producer id
        consumer.assign(List.of(tp));
        consumer.seekToEnd(List.of(tp));
        consumer.position(tp);
        System.out.printf("one 100-byte record at a time, %d ms apart%n", gapMs);
        round("cold (first " + MEASURED + ")", producer, consumer, topic, MEASURED, gapMs);
        round("warm-up (not counted)", producer, consumer, topic, warmup, 1);
        round("warm (after " + warmup + " more)", producer, consumer, topic, MEASURED, gapMs);
      }
    }
  }

  private static void round(String name, KafkaProducer<byte[], byte[]> producer,
      KafkaConsumer<byte[], byte[]> consumer, String topic, int records, long gapMs) throws Exception {
    List<Double> acked = new ArrayList<>();
    List<Double> consumed = new ArrayList<>();
    for (int i = 0; i < records; i++) {
      long t0 = System.nanoTime();
      producer.send(new ProducerRecord<>(topic, 0, null, new byte[100])).get();
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
