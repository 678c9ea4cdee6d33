package io.pg2lite.sink.it;

import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.ConnectRestClient;
import io.pg2lite.testkit.connect.ConnectWorker;
import io.pg2lite.testkit.kafka.TopicReader;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.QueryRows;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Postgres → source → Kafka → sink(s) → SQLite on the shared stack, for one test. */
final class Pipeline implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(90);

  final TestStack stack;
  final TestDatabase db;
  final String name;
  final String topic;
  final SqliteFiles files;
  final ConnectWorker worker;
  private final List<String> connectors = new ArrayList<>();

  /** The server the source reads: the stack's, or one of the test's own. */
  private final io.pg2lite.testkit.postgres.PostgresServer postgres;

  Pipeline(TestStack stack, String name) throws Exception {
    this(stack, name, stack.postgres());
  }

  /** On a Postgres server of the test's own (one whose settings the test changes). */
  Pipeline(TestStack stack, String name, io.pg2lite.testkit.postgres.PostgresServer postgres) throws Exception {
    this.stack = stack;
    this.name = name;
    this.postgres = postgres;
    this.db = postgres.newDatabase(name);
    this.topic = stack.kafka().uniqueTopicName(name);
    this.files = new SqliteFiles();
    this.worker = stack.connect();
  }

  void startSource() {
    startSource(Map.of());
  }

  void startSource(Map<String, String> extra) {
    Map<String, String> c = ConnectorConfigs.source(postgres, stack.kafka().bootstrapServers(), name + "-source",
        db.name(), name, topic);
    c.put("heartbeat.interval.ms", "1000");
    c.putAll(extra);
    worker.rest().putConnector(name + "-source", c);
    worker.rest().awaitRunning(name + "-source", WAIT);
    connectors.add(name + "-source");
  }

  Map<String, String> sinkConfig(String sink, Path replica) {
    return ConnectorConfigs.sink(stack, sink, topic, replica);
  }

  /** Starts a sink connector writing {@code replica}; returns its name. */
  String startSink(String suffix, Path replica) {
    return startSink(suffix, replica, Map.of());
  }

  /**
   * As {@link #startSink(String, Path)}, with {@code changes} to the config: a null value
   * removes the key.
   */
  String startSink(String suffix, Path replica, Map<String, String> changes) {
    String sink = name + "-sink-" + suffix;
    worker.rest().putConnector(sink, sinkConfig(sink, replica, changes));
    worker.rest().awaitRunning(sink, WAIT);
    connectors.add(sink);
    return sink;
  }

  /** The sink config {@link #startSink(String, Path, Map)} uses. */
  Map<String, String> sinkConfig(String sink, Path replica, Map<String, String> changes) {
    Map<String, String> c = new java.util.HashMap<>(sinkConfig(sink, replica));
    changes.forEach((k, v) -> {
      if (v == null) {
        c.remove(k);
      } else {
        c.put(k, v);
      }
    });
    return c;
  }

  /** Rows of a Postgres query, values as text. */
  List<List<String>> postgres(String sql) throws SQLException {
    try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return QueryRows.of(rs);
    }
  }

  /** Rows of a replica query, values as text. */
  /** The replica's stored offset, or null while it has none. */
  static String replicaOffset(Path replica) {
    try {
      var rows = Pipeline.replica(replica, "SELECT kafka_offset FROM \"_pg2lite.state\"");
      return rows.isEmpty() ? null : rows.get(0).get(0);
    } catch (java.sql.SQLException e) {
      return null;
    }
  }

  static List<List<String>> replica(Path file, String sql) throws SQLException {
    try (Connection c = SqliteFiles.open(file); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return QueryRows.of(rs);
    }
  }


  /** Waits until the replica holds what Postgres holds for the two queries. */
  void awaitEqual(Path replica, String pgSql, String liteSql) {
    Await.until("replica " + replica.getFileName() + " equal to Postgres", WAIT, () -> {
      try {
        return postgres(pgSql).equals(replica(replica, liteSql));
      } catch (SQLException e) {
        return false; // the replica's table may not exist yet
      }
    });
  }

  /**
   * Compares the two queries row by row while streaming both (for tables too large to hold
   * twice in memory); returns the first difference, or null when they are equal.
   */
  String firstDifference(Path replica, String pgSql, String liteSql) throws SQLException {
    return firstDifference(db, replica, pgSql, liteSql);
  }

  /** As {@link #firstDifference(Path, String, String)}, for a database outside a pipeline. */
  static String firstDifference(TestDatabase db, Path replica, String pgSql, String liteSql) throws SQLException {
    try (Connection pg = db.connect(); Connection lite = SqliteFiles.open(replica)) {
      pg.setAutoCommit(false);
      try (Statement ps = pg.createStatement(); Statement ls = lite.createStatement()) {
        ps.setFetchSize(5000);
        try (ResultSet a = ps.executeQuery(pgSql); ResultSet b = ls.executeQuery(liteSql)) {
          int cols = a.getMetaData().getColumnCount();
          long row = 0;
          while (true) {
            boolean hasA = a.next();
            boolean hasB = b.next();
            if (hasA != hasB) {
              return "row " + row + ": " + (hasA ? "missing in the replica" : "extra in the replica");
            }
            if (!hasA) {
              return null;
            }
            for (int i = 1; i <= cols; i++) {
              if (!java.util.Objects.equals(a.getString(i), b.getString(i))) {
                return "row " + row + " column " + i + ": Postgres " + a.getString(i) + ", replica " + b.getString(i);
              }
            }
            row++;
          }
        }
      }
    }
  }

  /**
   * The snapshot watermarks of the backfill copies of {@code table} in the change log, in log
   * order, each once: more than one means a copy was cancelled or restarted and taken again.
   */
  List<String> backfillSnapshots(String table) {
    io.pg2lite.protocol.codec.ChangeLogCodec codec = new io.pg2lite.protocol.codec.ChangeLogCodec();
    List<String> out = new ArrayList<>();
    try (TopicReader r = new TopicReader(
        stack.kafka().bootstrapServers(), topic)) {
      for (org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> rec : r.readToEnd(Duration.ofMinutes(2))) {
        io.pg2lite.protocol.message.Message m = codec.decode(rec.value()).message();
        if (m instanceof io.pg2lite.protocol.message.DataChange.Backfill b && b.relation().name().equals(table)
            && !out.contains(b.watermark().toString())) {
          out.add(b.watermark().toString());
        }
      }
    }
    return out;
  }

  /** Whether the change log holds a backfill-completed for {@code table}. */
  boolean backfillCompleted(String table) {
    io.pg2lite.protocol.codec.ChangeLogCodec codec = new io.pg2lite.protocol.codec.ChangeLogCodec();
    try (TopicReader r = new TopicReader(
        stack.kafka().bootstrapServers(), topic)) {
      return r.readToEnd(Duration.ofMinutes(2)).stream().map(rec -> codec.decode(rec.value()).message())
          .anyMatch(m -> m instanceof io.pg2lite.protocol.message.SchemaChange.BackfillCompleted c
              && c.relation().name().equals(table));
    }
  }

  /** Waits until {@link #firstDifference} finds none. */
  void awaitSame(Path replica, String pgSql, String liteSql, Duration timeout) {
    awaitSame(db, replica, pgSql, liteSql, timeout);
  }

  /**
   * Registers {@code <name>-source} and {@code <name>-sink} on a worker process (tests that kill
   * workers) and waits until both run: the source with {@code sourceExtras}, exactly-once or not;
   * the sink with a short consumer session, so a killed worker's consumer leaves sooner.
   */
  static void startConnectors(TestStack stack, ConnectRestClient rest, String name, TestDatabase db, String topic,
      Path replica, boolean exactlyOnce, Map<String, String> sourceExtras, Duration timeout) {
    Map<String, String> source = ConnectorConfigs.source(stack, name + "-source", db.name(), name, topic);
    source.putAll(sourceExtras);
    if (!exactlyOnce) {
      source.remove("exactly.once.support");
      source.remove("transaction.boundary");
    }
    rest.putConnector(name + "-source", source);
    rest.awaitRunning(name + "-source", timeout);
    Map<String, String> sink = ConnectorConfigs.sink(stack, name + "-sink", topic, replica);
    sink.put("consumer.override.session.timeout.ms", "10000");
    rest.putConnector(name + "-sink", sink);
    rest.awaitRunning(name + "-sink", timeout);
  }

  /** As {@link #awaitSame(Path, String, String, Duration)}, for a database outside a pipeline. */
  static void awaitSame(TestDatabase db, Path replica, String pgSql, String liteSql, Duration timeout) {
    String[] last = {null};
    try {
      Await.until("replica " + replica.getFileName() + " equal to Postgres", timeout, () -> {
        try {
          last[0] = firstDifference(db, replica, pgSql, liteSql);
        } catch (SQLException e) {
          last[0] = e.getMessage();
        }
        return last[0] == null;
      });
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(e.getMessage() + "; last difference: " + last[0], e);
    }
  }

  /**
   * Waits until the replica has no column still being backfilled and equals Postgres over every
   * table of {@code publication}, cell by cell ({@link io.pg2lite.testkit.fuzz.ReplicaComparator});
   * fails with the last differences.
   */
  void awaitReplicaEqualsPostgres(Path replica, String publication, String what) {
    String[] last = {"never compared"};
    try {
      Await.until("replica equal to Postgres: " + what, WAIT, () -> {
        try (Connection pg = db.connect(); Connection lite = SqliteFiles.open(replica)) {
          String backfilling = replica(replica, "SELECT count(*) FROM \"_pg2lite.columns\" WHERE backfill IS NOT NULL")
              .get(0).get(0);
          io.pg2lite.testkit.fuzz.ReplicaComparator.Result r = new io.pg2lite.testkit.fuzz.ReplicaComparator(10)
              .compare(pg, publication, lite);
          last[0] = backfilling + " columns backfilling; " + r.total() + " differences: " + r.differences();
          return backfilling.equals("0") && r.same();
        } catch (SQLException e) {
          last[0] = e.getMessage();
          return false;
        }
      });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last comparison: " + last[0], e);
    }
  }

  /** A long attribute of the MBean of {@code sink} (the worker runs in this JVM); -2 while it cannot be read. */
  static long sinkMetric(String sink, String attribute) {
    try {
      return (Long) java.lang.management.ManagementFactory.getPlatformMBeanServer().getAttribute(
          new javax.management.ObjectName("io.pg2lite:type=sink,connector=" + javax.management.ObjectName.quote(sink)),
          attribute);
    } catch (Exception e) {
      return -2;
    }
  }

  /** Waits until the replica has {@code table} with no column still being backfilled. */
  void awaitBackfilled(Path replica, String table, Duration timeout) {
    Await.until("table " + table + " backfilled in " + replica.getFileName(), timeout, () -> {
      try {
        List<List<String>> r = replica(replica, "SELECT count(*), sum(backfill IS NOT NULL) FROM \"_pg2lite.columns\""
            + " WHERE table_name = '" + table + "'");
        return !r.get(0).get(0).equals("0") && r.get(0).get(1).equals("0");
      } catch (SQLException e) {
        return false;
      }
    });
  }

  @Override
  public void close() throws Exception {
    for (String c : connectors) {
      if (worker.rest().connectors().contains(c)) {
        worker.rest().delete(c);
      }
    }
    Await.until("connectors of " + name + " gone and slot released", WAIT, () -> {
      try {
        return worker.rest().connectors().stream().noneMatch(connectors::contains)
            && db.queryColumn("SELECT active::text FROM pg_replication_slots WHERE slot_name = '" + name + "_slot'")
                .stream().noneMatch("true"::equals);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    });
    db.close();
    files.close();
  }
}
