package io.pg2lite.source.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CatalogInstallerTest {
  /** validate() reads the published schema with the function's own query before it is installed. */
  @Test
  void thePublishedSchemaQueryIsTheFunctionsBodyWithItsParameterBound() {
    CatalogInstaller.Query q = CatalogInstaller.publishedSchemaQuery();
    assertTrue(q.sql().startsWith("WITH pt AS ("), q.sql());
    assertTrue(q.sql().endsWith("FROM pt"), q.sql());
    assertEquals(4, q.parameters(), "the publication's name in the filter, the result and the generated-column test");
    assertEquals(4, q.sql().split("CAST\\(\\? AS text\\)", -1).length - 1);
    assertFalse(q.sql().contains("$fn$"));
    assertFalse(Pattern.compile("(?<![\\w.'])pub(?![\\w'])").matcher(q.sql()).find(), "no unbound parameter left");
    assertTrue(q.sql().contains("t.pubname = CAST(? AS text)"));
    assertTrue(q.sql().contains("'publication', CAST(? AS text)"));
  }

  /** Replication-stream mode reads tables by OID with the same query, minus the publication's list. */
  @Test
  void theTablesQueryReadsByOidWithoutLockingTables() {
    CatalogInstaller.Query q = CatalogInstaller.tablesQuery();
    assertFalse(q.sql().contains("pg_publication_tables"), "its function opens every published table");
    assertFalse(q.sql().contains("pg_get_expr"), "it opens the table whose expression it prints");
    assertTrue(q.sql().contains("c.oid = ANY (CAST(? AS bigint[])::oid[])"), q.sql());
    assertEquals(3, q.parameters(), "the publication's name in the result and the generated-column test");
    assertTrue(q.sql().endsWith("FROM pt"), q.sql());
  }
}
