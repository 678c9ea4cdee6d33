package io.pg2lite.quickstart;

import io.pg2lite.protocol.message.ChangeLogHeaders;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What the replica holds right now, read the way any reader of the file would (a separate SQLite
 * connection; WAL mode shows only committed transactions): its tables and row counts, columns
 * still being backfilled, its watermark, and its lag behind the change log in records: from the
 * sequence number of its last commit to the last committed record's (numbers count records only;
 * offsets also count transaction markers). Between two looks it also notices what a user came to
 * see arrive: a table created, a column added by a schema change, a backfill finished.
 */
final class ReplicaStatus implements AutoCloseable {
  /** Where the sink keeps a table copied whole until its copy completes (SqlNames.copying). */
  private static final String COPYING = "_pg2lite.copying.";
  private final Path replica;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final TopicPartition partition;
  private final ToLongFunction<String> upstreamRows;
  /** Columns of each replica table at the last look (absent: the table was not there yet). */
  private final Map<String, Set<String>> columnsSeen = new HashMap<>();
  private final Set<String> backfilling = new HashSet<>();
  /** Tables seen stored under the copying prefix: copied whole, hidden from readers until complete. */
  private final Set<String> wholeCopies = new HashSet<>();
  /** Per table being copied: rows and time at the first look during the copy, for rate and ETA. */
  private final Map<String, long[]> copyStart = new HashMap<>();
  private final List<String> news = new ArrayList<>();

  /** {@code upstreamRows}: a table's row count in Postgres, the total a backfill progresses to. */
  ReplicaStatus(Path replica, String bootstrapServers, String topicName, ToLongFunction<String> upstreamRows) {
    this.replica = replica;
    this.upstreamRows = upstreamRows;
    this.partition = new TopicPartition(topicName, 0);
    this.consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
    consumer.assign(List.of(partition));
  }

  /** Sequence number of the last committed record, -1 when there is none. */
  private long lastRecordSeq() {
    long end = consumer.endOffsets(List.of(partition)).getOrDefault(partition, 0L);
    consumer.seek(partition, Math.max(0, end - 3)); // the last record, its commit marker, slack
    long last = -1;
    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(java.time.Duration.ofMillis(200))) {
      org.apache.kafka.common.header.Header seq = r.headers().lastHeader(ChangeLogHeaders.SEQ);
      if (seq != null) {
        last = Math.max(last, Long.parseLong(new String(seq.value(), java.nio.charset.StandardCharsets.UTF_8)));
      }
    }
    return last;
  }

  String line() {
    if (!replica.toFile().exists()) {
      return "replica: not created yet";
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + replica); Statement s = c.createStatement()) {
      // Replicated tables by name; a table being copied whole is stored under the copying prefix
      // until complete (readers do not see it), and is shown here under its own name.
      Map<String, String> tables = new java.util.TreeMap<>();
      try (ResultSet rs = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table' AND (name NOT LIKE "
          + "'\\_pg2lite.%' ESCAPE '\\' OR name LIKE '" + COPYING.replace("_", "\\_") + "%' ESCAPE '\\')")) {
        while (rs.next()) {
          String stored = rs.getString(1);
          tables.put(stored.startsWith(COPYING) ? stored.substring(COPYING.length()) : stored, stored);
        }
      }
      StringBuilder out = new StringBuilder("replica:");
      for (Map.Entry<String, String> e : tables.entrySet()) {
        String t = e.getKey();
        long rows = Long.parseLong(scalar(s, "SELECT count(*) FROM " + quote(e.getValue())));
        String hidden = scalar(s, "SELECT count(*) FROM \"_pg2lite.columns\" WHERE table_name = '"
            + t.replace("'", "''") + "' AND backfill IS NOT NULL");
        boolean copying = hidden != null && !"0".equals(hidden);
        if (e.getValue().startsWith(COPYING)) {
          wholeCopies.add(t);
        }
        notice(t, columns(s, e.getValue()), copying, rows);
        out.append(' ').append(t).append(' ');
        if (copying) {
          long total = upstreamRows.applyAsLong(t);
          out.append(String.format("%,d/%,d rows (backfilling %s columns%s)", rows, total, hidden, eta(t, rows, total)));
        } else {
          out.append(String.format("%,d rows", rows));
        }
        out.append(',');
      }
      String watermark = scalar(s, "SELECT watermark FROM \"_pg2lite.state\"");
      String applied = scalar(s, "SELECT log_seq FROM \"_pg2lite.state\"");
      long last = lastRecordSeq();
      long lag = Math.max(0, last - (applied == null ? -1 : Long.parseLong(applied)));
      return out.append(" watermark ").append(watermark).append(", lag ").append(lag).append(" records").toString();
    } catch (SQLException e) {
      return "replica: " + e.getMessage();
    }
  }

  /**
   * What happened since the last call, one line each (a new table, a new column, a finished
   * backfill); the quickstart prints these above the status line.
   */
  List<String> news() {
    List<String> out = List.copyOf(news);
    news.clear();
    return out;
  }

  private void notice(String table, Set<String> columns, boolean copying, long rows) {
    Set<String> before = columnsSeen.put(table, columns);
    if (before == null) {
      news.add("the replica has a new table " + table + (copying ? ": its existing rows are being copied (readers see "
          + "it once complete)"
          : String.format(" (%,d rows)", rows)));
    } else {
      for (String c : columns) {
        if (!before.contains(c)) {
          news.add("schema change reached the replica: " + table + " has a new column " + c
              + (copying ? " (its values are being copied)" : ""));
        }
      }
    }
    if (copying) {
      backfilling.add(table);
    } else if (backfilling.remove(table)) {
      copyStart.remove(table);
      news.add(String.format("backfill of %s complete: %,d rows%s", table, rows,
          wholeCopies.remove(table) ? ", visible to readers from now on" : ", its new values complete"));
    }
  }

  /** ", N rows/s, ETA M s" from the first look at this copy to now; "" on the first look. */
  private String eta(String table, long rows, long total) {
    long now = System.nanoTime();
    long[] first = copyStart.computeIfAbsent(table, k -> new long[] {rows, now});
    double seconds = (now - first[1]) / 1e9;
    if (seconds < 0.5 || rows <= first[0]) {
      return "";
    }
    double rate = (rows - first[0]) / seconds;
    return String.format(", %,.0f rows/s, ETA %d s", rate, (long) Math.ceil(Math.max(0, total - rows) / rate));
  }

  private static Set<String> columns(Statement s, String table) throws SQLException {
    Set<String> out = new java.util.LinkedHashSet<>();
    try (ResultSet rs = s.executeQuery("SELECT name FROM pragma_table_info('" + table.replace("'", "''") + "')")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static String quote(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  private static String scalar(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    } catch (SQLException e) {
      return null; // a table the sink is still creating
    }
  }

  @Override
  public void close() {
    consumer.close();
  }
}
