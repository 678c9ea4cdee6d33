package io.pg2lite.quickstart;

import io.pg2lite.protocol.message.ChangeLogHeaders;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * offsets also count transaction markers).
 */
final class ReplicaStatus implements AutoCloseable {
  private final Path replica;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final TopicPartition partition;

  ReplicaStatus(Path replica, String bootstrapServers, String topicName) {
    this.replica = replica;
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
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
          + "'\\_pg2lite.%' ESCAPE '\\' ORDER BY name")) {
        while (rs.next()) {
          tables.add(rs.getString(1));
        }
      }
      StringBuilder out = new StringBuilder("replica:");
      for (String t : tables) {
        out.append(' ').append(t).append(' ').append(scalar(s, "SELECT count(*) FROM \"" + t.replace("\"", "\"\"") + "\""))
            .append(" rows");
        String hidden = scalar(s, "SELECT count(*) FROM \"_pg2lite.columns\" WHERE table_name = '"
            + t.replace("'", "''") + "' AND backfill IS NOT NULL");
        if (!"0".equals(hidden)) {
          out.append(" (backfilling ").append(hidden).append(" columns)");
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
