package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 10, defect 1: an explicit NULL in a column that has a DEFAULT must arrive as NULL, on
 * insert, on update, and in a column added later with a default, never as the default.
 */
@ExtendWith(TestStackExtension.class)
class ExplicitNullsIT {
  private static final String PG = "SELECT id, t, b::text, f::text, n, c FROM nd ORDER BY id";
  private static final String LITE = "SELECT id, t, CASE b WHEN 1 THEN 'true' WHEN 0 THEN 'false' END, "
      + "CAST(f AS TEXT), n, c FROM nd ORDER BY id";

  @Test
  void explicitNullsStayNullAndDefaultsApplyOnlyWhenOmitted(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "nulls")) {
      p.db.execute("CREATE TABLE seed (id int PRIMARY KEY)", "CREATE PUBLICATION nulls_pub FOR TABLE seed");
      p.startSource();
      Path replica = p.files.newFile("nulls");
      p.startSink("a", replica);
      p.db.execute("CREATE TABLE nd (id int PRIMARY KEY, t text DEFAULT 'dflt', b boolean DEFAULT true, "
          + "f float8 DEFAULT 1.5, n int)", "ALTER PUBLICATION nulls_pub ADD TABLE nd");
      p.db.execute("INSERT INTO nd VALUES (1, NULL, NULL, NULL, NULL)");
      p.db.execute("INSERT INTO nd (id) VALUES (2)");
      p.db.execute("ALTER TABLE nd ADD COLUMN c text DEFAULT 'added'");
      p.db.execute("INSERT INTO nd VALUES (3, NULL, NULL, NULL, NULL, NULL)");
      p.db.execute("UPDATE nd SET t = NULL, c = NULL WHERE id = 2");
      p.db.execute("INSERT INTO nd (id) VALUES (4)");
      p.awaitEqual(replica, PG, LITE);
      assertEquals(List.of(
          java.util.Arrays.asList("1", null, null, null, null, "added"),
          java.util.Arrays.asList("2", null, "true", "1.5", null, null),
          java.util.Arrays.asList("3", null, null, null, null, null),
          java.util.Arrays.asList("4", "dflt", "true", "1.5", null, "added")), Pipeline.replica(replica, LITE));
    }
  }
}
