package io.pg2lite.protocol.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.testing.ProtocolExamples;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Pins the wire format: docs/protocol/fixtures/&lt;tag&gt;.json must decode to the example entry of
 * {@link ProtocolExamples}, and the example must encode to the same JSON. A change to the format
 * fails here until the fixtures (and docs/protocol.md) are updated on purpose: run
 * {@code mvn -pl protocol test -Dtest=GoldenFixturesTest -Dpg2lite.updateFixtures=true}, then
 * review the diff.
 */
class GoldenFixturesTest {
  static final Path FIXTURES = Path.of(System.getProperty("pg2lite.fixtures", "../docs/protocol/fixtures"));
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ChangeLogCodec codec = new ChangeLogCodec();

  @TestFactory
  Stream<DynamicTest> everyMessageKindMatchesItsGoldenFile() throws IOException {
    if (Boolean.getBoolean("pg2lite.updateFixtures")) {
      writeFixtures();
    }
    return ProtocolExamples.byTag().entrySet().stream().map(e -> DynamicTest.dynamicTest(e.getKey(), () -> {
      Path file = FIXTURES.resolve(e.getKey() + ".json");
      String golden = Files.readString(file, StandardCharsets.UTF_8);
      assertEquals(e.getValue(), codec.decode(golden), "decoding " + file);
      assertEquals(JSON.readTree(golden), JSON.readTree(codec.encode(e.getValue())), "encoding to " + file);
    }));
  }

  @Test
  void thereIsExactlyOneFixturePerMessageKind() throws IOException {
    Set<String> expected = ProtocolExamples.byTag().keySet().stream().map(t -> t + ".json").collect(Collectors.toSet());
    try (Stream<Path> files = Files.list(FIXTURES)) {
      Set<String> actual = files.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
      assertEquals(expected, actual);
    }
    // 4 record kinds; 15 change tags, the verify message and the part of a split message, all
    // different; a new lineage's begin and a table that could not be compared.
    assertEquals(22, expected.size());
    assertTrue(expected.contains("verify-not-comparable.json"));
    assertTrue(expected.contains("begin-new-lineage.json"));
    assertTrue(expected.contains("backfill-completed.json"));
  }

  private void writeFixtures() throws IOException {
    Files.createDirectories(FIXTURES);
    for (Map.Entry<String, ChangeLogEntry> e : ProtocolExamples.byTag().entrySet()) {
      JsonNode tree = JSON.readTree(codec.encode(e.getValue()));
      Files.writeString(FIXTURES.resolve(e.getKey() + ".json"),
          JSON.writerWithDefaultPrettyPrinter().writeValueAsString(tree) + "\n", StandardCharsets.UTF_8);
    }
  }
}
