package io.pg2lite.sink.it;

import io.pg2lite.sink.Pg2liteSinkConnector;
import io.pg2lite.source.Pg2liteSourceConnector;
import io.pg2lite.testkit.Await;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.ConnectWorker;
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
import java.util.HashMap;
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
    Map<String, String> c = new HashMap<>();
    c.put("name", name + "-source");
    c.put("connector.class", Pg2liteSourceConnector.class.getName());
    c.put("database.hostname", "localhost");
    c.put("database.port", String.valueOf(stack.postgres().port()));
    c.put("database.dbname", db.name());
    c.put("database.user", stack.postgres().user());
    c.put("database.password", stack.postgres().password());
    c.put("database.sslmode", "disable");
    c.put("slot.name", name + "_slot");
    c.put("publication.name", name + "_pub");
    c.put("topic", topic);
    c.put("kafka.bootstrap.servers", stack.kafka().bootstrapServers());
    c.put("exactly.once.support", "required");
    c.put("transaction.boundary", "connector");
    c.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    c.put("heartbeat.interval.ms", "1000");
    worker.rest().putConnector(name + "-source", c);
    worker.rest().awaitRunning(name + "-source", WAIT);
    connectors.add(name + "-source");
  }

  Map<String, String> sinkConfig(String sink, Path replica) {
    Map<String, String> c = new HashMap<>();
    c.put("name", sink);
    c.put("connector.class", Pg2liteSinkConnector.class.getName());
    c.put("topics", topic);
    c.put("replica.path", replica.toString());
    c.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    c.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    c.put("consumer.override.isolation.level", "read_committed");
    c.put("consumer.override.fetch.max.wait.ms", "20");
    c.put("kafka.bootstrap.servers", stack.kafka().bootstrapServers());
    return c;
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
