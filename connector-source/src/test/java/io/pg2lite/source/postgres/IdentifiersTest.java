package io.pg2lite.source.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class IdentifiersTest {
  @Test
  void quotesEveryNameAndDoublesEmbeddedQuotes() {
    assertEquals("\"a\"\"b; DROP TABLE x\"", Identifiers.quote("a\"b; DROP TABLE x"));
    assertEquals("\"public\".\"Item\"", Identifiers.quoteQualified("public.Item"));
    assertEquals("\"item\"", Identifiers.quoteQualified("item"));
    assertEquals("\"my.schema\".\"t\"", Identifiers.quoteQualified("\"my.schema\".t"));
    assertEquals("\"s\".\"a\"\"b\"", Identifiers.quoteQualified("s.\"a\"\"b\""));
  }
}
