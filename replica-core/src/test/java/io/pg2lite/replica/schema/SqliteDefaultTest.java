package io.pg2lite.replica.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.stored.StoredForm;
import org.junit.jupiter.api.Test;

/** The SQL a constant default becomes; which defaults are constants is ConstantDefault's rule. */
class SqliteDefaultTest {
  private static String sql(String type, String dflt) {
    return SqliteDefault.of("c", new ColumnSpec(2, type, "b", "b", null, null, dflt));
  }

  @Test
  void literalsInTheLiveStreamsStorage() {
    assertEquals("1", sql("bool", "true::boolean"));
    assertEquals("-1", sql("int8", "(-1)::bigint"));
    assertEquals("'it''s'", sql("varchar", "'it''s'::character varying"));
    assertEquals("'1.50'", sql("numeric", "1.50"));
    assertEquals("'" + StoredForm.NEGATIVE_ZERO + "'", sql("float8", "'-0'::double precision"));
    assertEquals("'NaN'", sql("float4", "'NaN'"));
    assertEquals(Double.toString((double) 0.1f), sql("float4", "0.1"));
    assertEquals("'[\"a\",\"b c\",null]'", sql("text[]", "'{a,\"b c\",NULL}'::text[]"));
    assertNull(sql("text", null));
    assertNull(sql("text", "NULL"));
  }

  @Test
  void aRefusedDefaultNamesTheColumnItsTypeAndTheDefault() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SqliteDefault.of("qty", new ColumnSpec(2, "int4", "b", null, null, null, "1.7")));
    assertTrue(e.getMessage().startsWith("column \"qty\" (int4): default 1.7 is not a constant"), e.getMessage());
  }
}
