package io.pg2lite.replica.lite;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import io.pg2lite.protocol.schema.TableMetadata;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The metadata tables' JSON (issue 11): valid for any name Postgres allows, unchanged for the rest. */
class JsonTest {
  private static final String AWKWARD = "tab\there, new\nline, \"quote\", back\\slash, \u0001, été";

  /** Strict JSON: what any reader of the replica's metadata tables accepts. */
  private static void assertValidJson(String json) throws Exception {
    try (JsonParser p = new JsonFactory().createParser(json)) {
      while (p.nextToken() != null) {
        // reading to the end is the check
      }
    }
  }

  @Test
  void namesWithControlCharactersAndQuotesGiveValidJsonThatReadsBack() throws Exception {
    String list = Json.stringList(List.of(AWKWARD, "id"));
    assertValidJson(list);
    assertEquals(List.of(AWKWARD, "id"), Json.stringList(list));
    Map<String, String> versions = Map.of(AWKWARD, "4gat5t", "b", "4gat5t.01");
    String formatted = Json.stringMap(versions);
    assertValidJson(formatted);
    assertEquals(versions, Json.stringMap(formatted));
    Map<String, Integer> key = new LinkedHashMap<>();
    key.put(AWKWARD, 1);
    assertValidJson(Json.metadata(new TableMetadata(2200, 16384, key)));
  }

  @Test
  void ordinaryNamesAreWrittenAsBeforeSoStoredTextsStillMatch() {
    assertEquals("[\"id\",\"k\"]", Json.stringList(List.of("id", "k")));
    Map<String, Integer> key = new LinkedHashMap<>();
    key.put("id", 1);
    key.put("k", 3);
    assertEquals("{\"schemaOID\":2200,\"relationOID\":16384,\"rowKey\":{\"id\":{\"attNum\":1},\"k\":{\"attNum\":3}}}",
        Json.metadata(new TableMetadata(2200, 16384, key)));
  }

  @Test
  void textsWrittenByEarlierVersionsWithRawControlCharactersStillRead() {
    assertEquals(List.of("a\tb", "c\nd"), Json.stringList("[\"a\tb\",\"c\nd\"]"));
    assertEquals(Map.of("x\ty", "4gat5t"), Json.stringMap("{\"x\ty\":\"4gat5t\"}"));
  }
}
