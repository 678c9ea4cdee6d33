package io.pg2lite.replica.lite;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.protocol.schema.ColumnSpec;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The declared types give every column the affinity its storage needs, checked in SQLite itself:
 * text that reads as a number stays text in a text-stored column, whatever the Postgres type's
 * name holds ("int" in interval, point, int2vector, an enum named print_state).
 */
class LiteTypesTest {
  @Test
  void textStoredColumnsKeepNumericLookingTextAsText() throws Exception {
    List<String> types = List.of("print_state", "interval", "point", "int2vector", "int4range", "numeric", "jsonb",
        "text", "mood", "int4[]");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:"); Statement s = c.createStatement()) {
      StringBuilder ddl = new StringBuilder("CREATE TABLE t (");
      for (int i = 0; i < types.size(); i++) {
        ddl.append(i == 0 ? "" : ", ").append("c").append(i).append(' ')
            .append(SqlNames.quote(LiteTypes.declared(ColumnSpec.of(i + 1, types.get(i)))));
      }
      s.execute(ddl.append(")").toString());
      StringBuilder insert = new StringBuilder("INSERT INTO t VALUES (");
      for (int i = 0; i < types.size(); i++) {
        insert.append(i == 0 ? "?" : ", ?");
      }
      try (PreparedStatement ps = c.prepareStatement(insert.append(")").toString())) {
        for (int i = 0; i < types.size(); i++) {
          ps.setString(i + 1, value(types.get(i), i));
        }
        ps.executeUpdate();
      }
      try (ResultSet rs = s.executeQuery("SELECT * FROM t")) {
        rs.next();
        for (int i = 0; i < types.size(); i++) {
          try (ResultSet t = s.executeQuery("SELECT typeof(c" + i + "), c" + i + " FROM t")) {
            t.next();
            assertEquals("text", t.getString(1), types.get(i) + " declared " + LiteTypes.declared(ColumnSpec.of(1,
                types.get(i))));
            assertEquals(value(types.get(i), i), t.getString(2));
          }
        }
      }
    }
    assertEquals("int8|INTEGER", LiteTypes.declared(ColumnSpec.of(1, "int8")));
    assertEquals("TEXT", LiteTypes.declared(ColumnSpec.of(1, "interval")));
    assertEquals("int4[]|TEXT", LiteTypes.declared(ColumnSpec.of(1, "int4[]")));
  }

  /** Text that reads as a number; for an array, its JSON form (which never does). */
  private static String value(String type, int i) {
    return type.endsWith("[]") ? "[1]" : i % 2 == 0 ? "1" : "1.10";
  }
}
