package io.pg2lite.source.it;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.ConnectWorker;
import io.pg2lite.testkit.kafka.TopicReader;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.support.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One source connector under test: its own database, topic, slot and connector name on the
 * shared stack, plus a read_committed reader that decodes the change log.
 */
final class SourceFixture implements AutoCloseable {
  final TestStack stack;
  final TestDatabase db;
  private final PostgresServer postgres;
  final String name;
  final String topic;
  private ConnectWorker worker;
  private TopicReader reader;
  /** Main-stream entries: what most tests look at. */
  private final List<ChangeLogEntry> seen = new ArrayList<>();
  /** Every entry, backfill transactions included, in log order. */
  private final List<ChangeLogEntry> all = new ArrayList<>();
  private boolean inBackfill;
  private final ChangeLogCodec codec = new ChangeLogCodec();
  /** Every log these tests read must obey the protocol's ordering rules (docs/protocol.md). */
  private final io.pg2lite.protocol.message.ChangeLogRules rules = new io.pg2lite.protocol.message.ChangeLogRules();

  SourceFixture(TestStack stack, String name) throws Exception {
    this(stack, name, stack.connect());
  }

  SourceFixture(TestStack stack, String name, ConnectWorker worker) throws Exception {
    this(stack, name, worker, stack.postgres());
  }

  /** On a Postgres server of the test's own (one with TLS, say) instead of the stack's. */
  SourceFixture(TestStack stack, String name, PostgresServer postgres) throws Exception {
    this(stack, name, stack.connect(), postgres);
  }

  private SourceFixture(TestStack stack, String name, ConnectWorker worker, PostgresServer postgres) throws Exception {
    this.stack = stack;
    this.name = name;
    this.postgres = postgres;
    this.db = postgres.newDatabase(name);
    this.topic = stack.kafka().uniqueTopicName(name);
    this.worker = worker;
  }

  /** The slot the connector's {@link #config()} names. */
  String slot() {
    return name + "_slot";
  }

  Map<String, String> config() {
    Map<String, String> c = ConnectorConfigs.source(postgres, stack.kafka().bootstrapServers(), name, db.name(), name,
        topic);
    c.put("heartbeat.interval.ms", "1000");
    return c;
  }

  void start() {
    start(config());
  }

  void start(Map<String, String> config) {
    register(config);
    worker.rest().awaitRunning(name, Duration.ofSeconds(90));
  }

  /** Submits the config without waiting (for tests that expect the task to fail). */
  void register(Map<String, String> config) {
    worker.rest().putConnector(name, config);
  }

  /** The worker that runs the connector from now on (after the previous one was stopped). */
  void movedTo(ConnectWorker worker) {
    this.worker = worker;
  }

  /** Reads what arrives within {@code wait}; returns every entry read so far, backfill included. */
  List<ChangeLogEntry> readAll(Duration wait) {
    awaitEntries(Integer.MAX_VALUE / 2, wait);
    return allEntries();
  }

  /** Every entry read so far, backfill transactions included. */
  List<ChangeLogEntry> allEntries() {
    return List.copyOf(all);
  }

  /** Reads until {@code count} more main-stream entries arrived (or the timeout); returns all seen so far. */
  List<ChangeLogEntry> awaitEntries(int count, Duration timeout) {
    if (reader == null) {
      reader = new TopicReader(stack.kafka().bootstrapServers(), topic);
    }
    int target = seen.size() + count;
    long deadline = System.nanoTime() + timeout.toNanos();
    while (seen.size() < target && System.nanoTime() < deadline) {
      for (ConsumerRecord<byte[], byte[]> r : reader.read(target - seen.size(), Duration.ofMillis(500))) {
        ChangeLogEntry e = codec.decode(r.value());
        try {
          rules.accept(e);
        } catch (io.pg2lite.protocol.message.ChangeLogRules.Violation v) {
          throw new AssertionError("change log " + topic + " offset " + r.offset() + " breaks the protocol: "
              + v.getMessage() + "; the previous records: " + all.subList(Math.max(0, all.size() - 4), all.size())
              .stream().map(x -> x.kind().wireName() + "@" + x.watermark() + "/" + x.pos()).toList(), v);
        }
        all.add(e);
        if (e.message() instanceof io.pg2lite.protocol.message.Begin b && b.backfill()) {
          inBackfill = true;
        } else if (inBackfill) {
          inBackfill = !(e.message() instanceof io.pg2lite.protocol.message.Commit
              || e.message() instanceof io.pg2lite.protocol.message.Rollback);
        } else {
          seen.add(e);
        }
      }
    }
    return List.copyOf(seen);
  }

  /**
   * The schemas the source recorded in its schema history topic (ADR 0028), as JSON text,
   * oldest first (each record whole: the tests' schemas fit one record).
   */
  List<String> schemaHistory() {
    List<String> out = new ArrayList<>();
    try (TopicReader history = new TopicReader(stack.kafka().bootstrapServers(), topic + ".schemas")) {
      for (ConsumerRecord<byte[], byte[]> r : history.readToEnd(Duration.ofSeconds(30))) {
        try (java.util.zip.GZIPInputStream in = new java.util.zip.GZIPInputStream(
            new java.io.ByteArrayInputStream(r.value()))) {
          out.add(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.io.IOException e) {
          throw new AssertionError("schema history record " + r.offset() + " is not gzip'd JSON", e);
        }
      }
    }
    return out;
  }

  /** Everything read so far. */
  List<ChangeLogEntry> entries() {
    return List.copyOf(seen);
  }

  /**
   * Waits until Connect has stored a source position at or past the last commit read, so a task
   * started later resumes after it (watermarks sort as text).
   */
  void awaitPositionStored(Duration timeout) {
    String last = seen.stream().filter(e -> e.message() instanceof io.pg2lite.protocol.message.Commit)
        .reduce((a, b) -> b).orElseThrow(() -> new AssertionError("no commit read yet")).watermark().toString();
    Await.until("a stored source position at or past " + last, timeout,
        () -> worker.rest().offsets(name).stream()
            .anyMatch(o -> o.containsKey("watermark") && o.get("watermark").compareTo(last) >= 0));
  }

  void stopConnector() {
    worker.rest().delete(name);
  }

  @Override
  public void close() throws Exception {
    try {
      if (worker.rest().connectors().contains(name)) {
        worker.rest().delete(name);
        Await.until("connector " + name + " deleted and its slot released", Duration.ofSeconds(30),
            () -> {
              try {
                return db.queryColumn("SELECT active::text FROM pg_replication_slots WHERE slot_name = '"
                    + slot() + "'").stream().noneMatch("true"::equals);
              } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
              }
            });
      }
    } finally {
      if (reader != null) {
        reader.close();
      }
      db.close();
    }
  }
}
