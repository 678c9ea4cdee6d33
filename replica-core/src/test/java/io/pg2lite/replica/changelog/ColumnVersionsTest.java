package io.pg2lite.replica.changelog;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.protocol.watermark.Watermark;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The stored text of column versions (issue 11): one text per set of versions, as earlier versions wrote it. */
class ColumnVersionsTest {
  private static final String AWKWARD = "tab\there, new\nline, \"quote\", back\\slash, \u0001, été";

  @Test
  void awkwardNamesReadBack() {
    Map<String, Watermark> versions = Map.of(AWKWARD, Watermark.parse("4gat5t"), "b", Watermark.parse("4gat5t.01"));
    assertEquals(versions, ColumnVersions.parse(ColumnVersions.format(versions)));
  }

  @Test
  void keysAreWrittenSortedSoStoredTextsStillMatch() {
    assertEquals("{\"a\":\"4gat5t\",\"b\":\"4gat5t.01\"}",
        ColumnVersions.format(Map.of("b", Watermark.parse("4gat5t.01"), "a", Watermark.parse("4gat5t"))));
  }

  @Test
  void textsWrittenByEarlierVersionsWithRawControlCharactersStillRead() {
    assertEquals(Map.of("x\ty", Watermark.parse("4gat5t")), ColumnVersions.parse("{\"x\ty\":\"4gat5t\"}"));
  }
}
