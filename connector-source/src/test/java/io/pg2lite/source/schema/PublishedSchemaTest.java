package io.pg2lite.source.schema;

import static io.pg2lite.source.schema.Schemas.col;
import static io.pg2lite.source.schema.Schemas.index;
import static io.pg2lite.source.schema.Schemas.pk;
import static io.pg2lite.source.schema.Schemas.schema;
import static io.pg2lite.source.schema.Schemas.table;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The one row-key rule, which validate() and the start-up both ask. */
class PublishedSchemaTest {
  private static List<String> withoutKey(PublishedSchema s, boolean allowUniqueIndex) {
    return s.tablesWithoutKey(allowUniqueIndex).stream().map(PublishedSchema.Table::name).toList();
  }

  @Test
  void aPrimaryKeyOrAUniqueNonPartialImmediateIndexOverNotNullColumns() {
    PublishedSchema.Index partial = new PublishedSchema.Index("p_idx", "public", true, false, false, true, false,
        List.of(new PublishedSchema.IndexColumn("id", false)));
    PublishedSchema.Index deferred = new PublishedSchema.Index("d_idx", "public", true, false, false, false, true,
        List.of(new PublishedSchema.IndexColumn("id", false)));
    PublishedSchema s = schema(
        table(1, "pk", List.of(col("id", 1, "int4", true)), pk("pk_pkey", "id")),
        table(2, "unique", List.of(col("a", 1, "int4", true), col("b", 2, "int4", true)), index("u", true, "a", "b")),
        table(3, "nullable", List.of(col("a", 1, "int4", true), col("b", 2, "int4", false)), index("n", true, "a", "b")),
        table(4, "not_unique", List.of(col("id", 1, "int4", true)), index("i", false, "id")),
        table(5, "partial", List.of(col("id", 1, "int4", true)), partial),
        table(6, "deferred", List.of(col("id", 1, "int4", true)), deferred),
        table(7, "none", List.of(col("v", 1, "text", false))));
    assertEquals(List.of("nullable", "not_unique", "partial", "deferred", "none"), withoutKey(s, true));
    assertEquals(List.of("unique", "nullable", "not_unique", "partial", "deferred", "none"), withoutKey(s, false));
  }
}
