package io.pg2lite.testkit.support;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A query's rows with every value as its JDBC text, for comparing a replica with Postgres: the
 * two agree exactly when these lists are equal (the replica keeps Postgres' text for everything
 * but integers, floats and booleans).
 */
public final class QueryRows {
  private QueryRows() {}

  public static List<List<String>> of(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return of(rs);
    }
  }

  public static List<List<String>> of(ResultSet rs) throws SQLException {
    ResultSetMetaData md = rs.getMetaData();
    List<List<String>> out = new ArrayList<>();
    while (rs.next()) {
      List<String> row = new ArrayList<>(md.getColumnCount());
      for (int i = 1; i <= md.getColumnCount(); i++) {
        row.add(rs.getString(i));
      }
      out.add(row);
    }
    return out;
  }
}
