package io.pg2lite.sink.it;

import io.pg2lite.testkit.Await;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.ConnectWorker;
import io.pg2lite.testkit.connect.ConnectorConfigs;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
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

  Pipeline(TestStack stack, String name) throws Exception {
    this.stack = stack;
    this.name = name;
    this.db = stack.postgres().newDatabase(name);
    this.topic = stack.kafka().uniqueTopicName(name);
    this.files = new SqliteFiles();
    this.worker = stack.connect();
  }

  void startSource() {
    Map<String, String> c = ConnectorConfigs.source(stack, name + "-source", db.name(), name, topic);
    c.put("heartbeat.interval.ms", "1000");
    worker.rest().putConnector(name + "-source", c);
    worker.rest().awaitRunning(name + "-source", WAIT);
    connectors.add(name + "-source");
  }

  Map<String, String> sinkConfig(String sink, Path replica) {
    return ConnectorConfigs.sink(stack, sink, topic, replica);
  }

  /** Starts a sink connector writing {@code replica}; returns its name. */
  String startSink(String suffix, Path replica) {
    String sink = name + "-sink-" + suffix;
    worker.rest().putConnector(sink, sinkConfig(sink, replica));
    worker.rest().awaitRunning(sink, WAIT);
    connectors.add(sink);
    return sink;
  }

  /** Rows of a Postgres query, values as text. */
  List<List<String>> postgres(String sql) throws SQLException {
    try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rows(rs);
    }
  }

  /** Rows of a replica query, values as text. */
  static List<List<String>> replica(Path file, String sql) throws SQLException {
    try (Connection c = SqliteFiles.open(file); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rows(rs);
    }
  }

  private static List<List<String>> rows(ResultSet rs) throws SQLException {
    ResultSetMetaData md = rs.getMetaData();
    List<List<String>> out = new ArrayList<>();
    while (rs.next()) {
      List<String> row = new ArrayList<>();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        row.add(rs.getString(i));
      }
      out.add(row);
    }
    return out;
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
