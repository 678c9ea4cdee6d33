package io.pg2lite.replica.lineage;

import io.pg2lite.replica.apply.ReplicaApplier;
import io.pg2lite.replica.Replica;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.ReplicaSettings;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Replica files for the lineage tests: {@link ReplicaLineages} opened on a path as the task opens
 * it, and what a reader sees when it opens a file by its path.
 */
public final class ReplicaFiles {
  public static final ReplicaSettings SETTINGS = new ReplicaSettings("WAL", "NORMAL", 5000, 0, 1000);

  private ReplicaFiles() {}

  /** The replica at {@code path} and the lineages around it, with the seeks it asks for collected in {@code seeks}. */
  public static ReplicaLineages open(Path path, List<Long> seeks, LineageEvents events) throws ReplicaException {
    return open(path, SETTINGS, seeks, events);
  }

  public static ReplicaLineages open(Path path, ReplicaSettings settings, List<Long> seeks, LineageEvents events)
      throws ReplicaException {
    Replica replica = settings.open(path);
    return ReplicaLineages.open(path, settings, replica, new ReplicaApplier(replica,
        settings.maxTransactionsPerCommit()), (topic, partition, offset) -> seeks.add(offset), events);
  }

  /** One batch: every record offered, then the end of the batch. */
  public static void batch(ReplicaLineages lineages, List<ChangeLogRecord> records) {
    for (ChangeLogRecord r : records) {
      lineages.accept(r);
    }
    lineages.flush();
  }

  /** What a reader opening {@code path} sees: the state row's replica version. */
  public static String version(Path path) throws SQLException {
    List<List<Object>> rows = query(path, "SELECT replica_version FROM \"_pg2lite.state\"");
    return rows.isEmpty() ? null : (String) rows.get(0).get(0);
  }

  /** What a reader opening {@code path} sees: the ids of {@code table}, in order. */
  public static List<Long> ids(Path path, String table) throws SQLException {
    List<Long> out = new ArrayList<>();
    for (List<Object> row : query(path, "SELECT id FROM \"" + table + "\" ORDER BY id")) {
      out.add(((Number) row.get(0)).longValue());
    }
    return out;
  }

  /** What a reader opening {@code path} sees: the rows of {@code table} as {@code id=v}, in id order. */
  public static List<String> rows(Path path, String table) throws SQLException {
    List<String> out = new ArrayList<>();
    for (List<Object> row : query(path, "SELECT id, v FROM \"" + table + "\" ORDER BY id")) {
      out.add(row.get(0) + "=" + row.get(1));
    }
    return out;
  }

  /** The rows {@link LineageLog} sends for ids {@code from..to}, as {@link #rows} shows them. */
  public static List<String> sent(long from, long to) {
    return range(from, to).stream().map(id -> id + "=" + LineageLog.value(id)).toList();
  }

  /** The replicated tables a reader lists (the {@code _pg2lite.*} ones left out). */
  public static List<String> tables(Path path) throws SQLException {
    List<String> out = new ArrayList<>();
    for (List<Object> row : query(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
        + "'\\_pg2lite.%' ESCAPE '\\' ORDER BY name")) {
      out.add((String) row.get(0));
    }
    return out;
  }

  public static List<List<Object>> query(Path path, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + path); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<List<Object>> out = new ArrayList<>();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          row.add(rs.getObject(i));
        }
        out.add(row);
      }
      return out;
    }
  }

  /** Ids {@code from..to}, inclusive. */
  public static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i <= to; i++) {
      out.add(i);
    }
    return out;
  }
}
