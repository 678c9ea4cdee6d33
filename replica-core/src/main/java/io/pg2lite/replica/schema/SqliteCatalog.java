package io.pg2lite.replica.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** What the replica asks SQLite's own catalog: declared column types and the indexes on a column. */
final class SqliteCatalog {
  private final Connection c;

  SqliteCatalog(Connection c) {
    this.c = c;
  }

  String declaredType(String table, String column) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT type FROM pragma_table_info(?) WHERE name = ?")) {
      ps.setString(1, table);
      ps.setString(2, column);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalArgumentException("table \"" + table + "\" has no column \"" + column + "\"");
        }
        return rs.getString(1);
      }
    }
  }

  boolean hasIndex(String index) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?")) {
      ps.setString(1, index);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  List<String> indexNamesOn(String table, String column) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT il.name FROM pragma_index_list(?) il, "
        + "pragma_index_info(il.name) ii WHERE ii.name = ?")) {
      ps.setString(1, table);
      ps.setString(2, column);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  List<String> indexesOn(String table, String column) throws SQLException {
    List<String> out = new ArrayList<>();
    for (String idx : indexNamesOn(table, column)) {
      try (PreparedStatement ps = c.prepareStatement("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?")) {
        ps.setString(1, idx);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next() && rs.getString(1) != null) {
            out.add(rs.getString(1));
          }
        }
      }
    }
    return out;
  }
}
