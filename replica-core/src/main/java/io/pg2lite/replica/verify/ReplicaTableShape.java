package io.pg2lite.replica.verify;

import io.pg2lite.protocol.message.Verify;
import io.pg2lite.replica.file.MetadataTables;
import io.pg2lite.replica.lite.SqlNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where the replica keeps the table a verify message names, and whether its rows can be compared
 * at all: read from {@link MetadataTables#TABLES} and {@link MetadataTables#COLUMNS} in the
 * verifier's read transaction, so at the verify's position like the rows.
 *
 * <p>Not comparable: a table the replica lacks, one still being copied whole (its rows are not
 * all there, and not under its name), one with a column being backfilled (its values are not all
 * there), one lacking a column the message names. Each is said in the outcome, never reported as
 * a mismatch: the replica is not known to be wrong.
 *
 * @param liteName the replica table holding the rows; null when not comparable
 * @param notComparable why the rows cannot be compared; null when they can
 */
record ReplicaTableShape(String liteName, String notComparable) {
  static ReplicaTableShape of(Connection c, Verify v) throws SQLException {
    String table;
    boolean copying;
    try (PreparedStatement ps = c.prepareStatement("SELECT table_name, copying FROM "
        + SqlNames.quote(MetadataTables.TABLES) + " WHERE upstream_schema = ? AND upstream_name = ?")) {
      ps.setString(1, v.relation().schema());
      ps.setString(2, v.relation().name());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return notComparable("the replica has no table " + v.relation().table());
        }
        table = rs.getString(1);
        copying = rs.getInt(2) != 0;
      }
    }
    if (copying) {
      return notComparable("the replica is still copying the table");
    }
    Set<String> columns = new HashSet<>();
    List<String> backfilling = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT column_name, backfill FROM "
        + SqlNames.quote(MetadataTables.COLUMNS) + " WHERE table_name = ? ORDER BY pos")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          columns.add(rs.getString(1));
          if (rs.getString(2) != null) {
            backfilling.add(rs.getString(1));
          }
        }
      }
    }
    if (!backfilling.isEmpty()) {
      return notComparable("the replica is still backfilling column" + (backfilling.size() > 1 ? "s " : " ")
          + String.join(", ", backfilling));
    }
    List<String> missing = v.columns().stream().filter(col -> !columns.contains(col)).toList();
    if (!missing.isEmpty()) {
      return notComparable("the replica's table has no column" + (missing.size() > 1 ? "s " : " ")
          + String.join(", ", missing));
    }
    List<String> keyOutside = v.relation().rowKey().columns().stream().filter(k -> !v.columns().contains(k)).toList();
    if (!keyOutside.isEmpty()) {
      return notComparable("the row key's " + String.join(", ", keyOutside) + " is not among the compared columns");
    }
    if (v.keyRange() != null && v.relation().rowKey().columns().size() != 1) {
      return notComparable("a key range needs a row key of one column, not " + v.relation().rowKey().columns());
    }
    return new ReplicaTableShape(table, null);
  }

  private static ReplicaTableShape notComparable(String why) {
    return new ReplicaTableShape(null, why);
  }
}
