package io.pg2lite.sink.bench;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.sink.Pg2liteSinkTask;
import io.pg2lite.testkit.TestStack;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * Kafka → SQLite apply rate from a pre-filled topic: {@code mvn -B -q -pl connector-sink exec:java
 * -Dexec.classpathScope=test -Dexec.mainClass=io.pg2lite.sink.bench.SinkBench} (docs/performance.md).
 *
 * <p>The topic is filled first with the source's record format (values and headers); then a
 * consumer reads it in Connect's batch size and hands {@link SinkRecord}s to the real
 * {@link Pg2liteSinkTask}, as Connect's worker does with the byte-array converter. Timed: from the
 * first poll to the last put; reported with peak heap and replica file size.
 */
public final class SinkBench {
  private static final Relation ITEM = new Relation("public", "item", RowKey.of("id"));

  public static void main(String[] args) throws Exception {
    Path work = Files.createTempDirectory("pg2lite-sink-bench");
    if (List.of(args).contains("apply-only")) {
      // No broker, no consumer: pre-encoded records straight into put(), to separate the sink's
      // own cost (decode + apply + SQLite) from consuming Kafka on the same cores.
      System.out.printf("%-28s %9s %9s %9s %9s%n", "apply only", "rows", "txs", "rows/s", "txs/s");
      applyOnly(work, "1M rows, 500-row txs", 2000, 500);
      applyOnly(work, "100k 1-row txs", 100_000, 1);
      return;
    }
    try (TestStack stack = TestStack.create()) {
      String bootstrap = stack.kafka().bootstrapServers();
      System.out.printf("%-28s %9s %9s %9s %9s %10s %10s%n", "workload", "rows", "txs", "rows/s", "txs/s",
          "peak heap", "file size");
      run(stack, work, "1M rows, 500-row txs", 2000, 500, bootstrap);
      run(stack, work, "100k 1-row txs", 100_000, 1, bootstrap);
    }
  }

  private static void run(TestStack stack, Path work, String name, int txs, int rowsPerTx, String bootstrap)
      throws Exception {
    String topic = stack.kafka().uniqueTopicName("sink-bench");
    stack.kafka().createTopic(topic, 1);
    long rows = fill(bootstrap, topic, txs, rowsPerTx);
    Path replica = work.resolve(topic + ".db");
    Pg2liteSinkTask task = new Pg2liteSinkTask();
    task.initialize(new NoContext());
    task.start(Map.of("replica.path", replica.toString()));
    System.gc();
    resetPeaks();
    Map<String, Object> props = new HashMap<>();
    props.put("bootstrap.servers", bootstrap);
    props.put("isolation.level", "read_committed");
    props.put("max.poll.records", "500");
    long t0 = System.nanoTime();
    long seen = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      while (consumer.position(tp) < end) {
        List<SinkRecord> batch = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          ConnectHeaders headers = new ConnectHeaders();
          r.headers().forEach(h -> headers.addString(h.key(), new String(h.value(), StandardCharsets.UTF_8)));
          batch.add(new SinkRecord(topic, 0, null, null, Schema.BYTES_SCHEMA, r.value(), r.offset(), null, null,
              headers));
        }
        seen += batch.size();
        task.put(batch);
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    task.stop();
    System.out.printf("%-28s %9d %9d %9.0f %9.0f %7d MB %7d MB%n", name, rows, txs, rows / seconds, txs / seconds,
        peakHeapMb(), Files.size(replica) / (1024 * 1024));
    if (seen == 0) {
      throw new IllegalStateException("nothing read");
    }
  }

  /**
   * Encodes one batch of 500 records at a time and times only {@code put()}: holding the whole
   * workload in memory would make the GC, not the sink, the thing measured.
   */
  private static void applyOnly(Path work, String name, int txs, int rowsPerTx) throws Exception {
    ChangeLogCodec codec = new ChangeLogCodec();
    Pg2liteSinkTask task = new Pg2liteSinkTask();
    task.initialize(new NoContext());
    task.start(Map.of("replica.path", work.resolve("apply-only-" + txs + ".db").toString()));
    long offset = 0;
    long rows = 0;
    long nanos = 0;
    List<SinkRecord> batch = new ArrayList<>(500);
    for (int t = -1; t < txs; t++) {
      for (ChangeLogEntry e : transaction(t, rowsPerTx)) {
        ConnectHeaders headers = new ConnectHeaders();
        headers.addString(ChangeLogHeaders.REPLICA_VERSION, "01");
        batch.add(new SinkRecord("log", 0, null, null, Schema.BYTES_SCHEMA, codec.encode(e), offset++, null, null,
            headers));
        rows += e.message() instanceof io.pg2lite.protocol.message.DataChange.Insert ? 1 : 0;
        if (batch.size() == 500) {
          long t0 = System.nanoTime();
          task.put(batch);
          nanos += System.nanoTime() - t0;
          batch = new ArrayList<>(500);
        }
      }
    }
    long t0 = System.nanoTime();
    task.put(batch);
    nanos += System.nanoTime() - t0;
    task.stop();
    double seconds = nanos / 1e9;
    System.out.printf("%-28s %9d %9d %9.0f %9.0f%n", name, rows, txs, rows / seconds, txs / seconds);
  }

  /**
   * Transaction {@code t} of the workload, made when needed: -1 creates the table, t >= 0 inserts
   * rows t * rowsPerTx + 1 ... Commit LSNs advance by 0x100 per transaction.
   */
  private static List<ChangeLogEntry> transaction(int t, int rowsPerTx) {
    long lsn = 0x1000 + 0x100L * (t + 1);
    if (t < 0) {
      Map<String, ColumnSpec> cols = itemColumns();
      return ChangeMessages.after(new Lsn(lsn).toString()).begin(1)
          .change(new SchemaChange.CreateTable(new TableSpec("public", "item", cols, List.of("id")),
              new TableMetadata(2200, 1, Map.of("id", 1)), null))
          .commit(new Lsn(lsn + 0x100).toString()).entries();
    }
    ChangeMessages tx = ChangeMessages.after(new Lsn(lsn).toString()).begin(t + 2);
    for (int r = 0; r < rowsPerTx; r++) {
      long id = (long) t * rowsPerTx + r + 1;
      tx.insert(ITEM, Row.of("id", Value.of(id), "name", Value.of("item " + id), "price",
          Value.of((id % 1000) + ".25"), "qty", Value.of(id % 100), "updated",
          Value.of("2026-11-29T10:00:00.123456Z")));
    }
    return tx.commit(new Lsn(lsn + 0x100).toString()).entries();
  }

  /** The bench table's columns (id int8 key, name, price, qty, updated), as a create-table carries them. */
  static Map<String, ColumnSpec> itemColumns() {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int8"));
    cols.put("name", ColumnSpec.of(2, "text"));
    cols.put("price", ColumnSpec.of(3, "numeric"));
    cols.put("qty", ColumnSpec.of(4, "int4"));
    cols.put("updated", ColumnSpec.of(5, "timestamptz"));
    return cols;
  }

  /** Writes the workload in the source's format: one create-table transaction, then the transactions. */
  private static long fill(String bootstrap, String topic, int txs, int rowsPerTx) throws Exception {
    ChangeLogCodec codec = new ChangeLogCodec();
    Map<String, Object> props = Map.of("bootstrap.servers", bootstrap, "linger.ms", "20", "batch.size", "262144");
    Map<String, ColumnSpec> cols = itemColumns();
    long id = 0;
    long lsn = 0x1000;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
        new ByteArraySerializer())) {
      ChangeMessages log = ChangeMessages.after(new Lsn(lsn).toString()).begin(1)
          .change(new SchemaChange.CreateTable(new TableSpec("public", "item", cols, List.of("id")),
              new TableMetadata(2200, 1, Map.of("id", 1)), null));
      lsn += 0x100;
      log.commit(new Lsn(lsn).toString());
      send(producer, codec, topic, log.entries());
      for (int t = 0; t < txs; t++) {
        ChangeMessages tx = ChangeMessages.after(new Lsn(lsn).toString()).begin(t + 2);
        for (int r = 0; r < rowsPerTx; r++) {
          id++;
          tx.insert(ITEM, Row.of("id", Value.of(id), "name", Value.of("item " + id), "price",
              Value.of((id % 1000) + ".25"), "qty", Value.of(id % 100), "updated",
              Value.of("2026-11-29T10:00:00.123456Z")));
        }
        lsn += 0x100;
        send(producer, codec, topic, tx.commit(new Lsn(lsn).toString()).entries());
      }
      producer.flush();
    }
    return id;
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, ChangeLogCodec codec, String topic,
      List<ChangeLogEntry> entries) {
    for (ChangeLogEntry e : entries) {
      RecordHeaders h = new RecordHeaders();
      h.add(ChangeLogHeaders.REPLICA_VERSION, "01".getBytes(StandardCharsets.UTF_8));
      producer.send(new ProducerRecord<byte[], byte[]>(topic, null, (byte[]) null, codec.encode(e), h));
    }
  }

  private static void resetPeaks() {
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      p.resetPeakUsage();
    }
  }

  /** Peak heap of this JVM during the run (the broker shares it: an upper bound for the sink). */
  private static long peakHeapMb() {
    long sum = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        sum += p.getPeakUsage().getUsed();
      }
    }
    return sum / (1024 * 1024);
  }

  /**
   * Connect's context for a task driven by hand (this bench and ReplicaGrowthBench): offsets are
   * set once by the task's open().
   */
  static final class NoContext implements SinkTaskContext {
    @Override
    public Map<String, String> configs() {
      return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {}

    @Override
    public void offset(TopicPartition tp, long offset) {}

    @Override
    public void timeout(long timeoutMs) {}

    @Override
    public Set<TopicPartition> assignment() {
      return Set.of();
    }

    @Override
    public void pause(TopicPartition... partitions) {}

    @Override
    public void resume(TopicPartition... partitions) {}

    @Override
    public void requestCommit() {}

    @Override
    public ErrantRecordReporter errantRecordReporter() {
      return null;
    }

    @Override
    public org.apache.kafka.common.metrics.PluginMetrics pluginMetrics() {
      return null;
    }
  }
}
