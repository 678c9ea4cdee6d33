package io.pg2lite.protocol.parts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.codec.ProtocolException;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Part;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.testing.ProtocolExamples;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Splitting a message across records ({@link RecordValues}) and joining it ({@link PartJoiner}):
 * every record fits the limit, every part is valid UTF-8 JSON alone, the join is the message, and
 * a lost, repeated or foreign record between parts is a protocol error. The split of a pinned
 * example is the golden file {@code docs/protocol/split/insert.jsonl}.
 */
class SplitMessagesTest {
  static final Path SPLIT_FIXTURE = Path.of(System.getProperty("pg2lite.fixtures", "../docs/protocol/fixtures"))
      .resolveSibling("split").resolve("insert.jsonl");
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ChangeLogCodec codec = new ChangeLogCodec();

  private static ChangeLogEntry bigInsert(String title, long pos) {
    return new ChangeLogEntry(ProtocolExamples.PRE_COMMIT, pos, new DataChange.Insert(ProtocolExamples.ISSUE,
        Row.of("id", Value.of("a1"), "title", Value.of(title), "n", Value.of(7L))));
  }

  /** Quotes and backslashes (escaped twice), 2-, 3- and 4-byte characters, control characters. */
  private static String awkwardText(int chars, long seed) {
    String[] pieces = {"a", "\"", "\\", "é", "€", "😀", "\n", "\u0001", "x y", "\\\""};
    Random r = new Random(seed);
    StringBuilder b = new StringBuilder();
    while (b.length() < chars) {
      b.append(pieces[r.nextInt(pieces.length)]);
    }
    return b.toString();
  }

  private List<byte[]> values(ChangeLogEntry e, int limit) {
    RecordValues v = RecordValues.of(codec, e, limit);
    List<byte[]> out = new ArrayList<>();
    while (v.hasNext()) {
      out.add(v.next());
    }
    assertEquals(v.count(), out.size());
    return out;
  }

  @Test
  void aMessageThatFitsIsOneRecordExactlyAsEncoded() {
    ChangeLogEntry e = bigInsert("short", 1);
    List<byte[]> values = values(e, 1_048_576);
    assertEquals(1, values.size());
    assertArrayEquals(codec.encode(e), values.get(0));
    assertFalse(RecordValues.of(codec, e, 1_048_576).split());
  }

  @Test
  void everyPartFitsTheLimitAndTheirJoinIsTheMessage() throws java.nio.charset.CharacterCodingException {
    for (int limit : new int[] {RecordValues.MIN_LIMIT, 1000, 4096, 65_536}) {
      for (long seed = 1; seed <= 5; seed++) {
        ChangeLogEntry e = bigInsert(awkwardText(30_000, seed), 3);
        List<byte[]> values = values(e, limit);
        assertTrue(values.size() >= 2, "split at " + limit);
        PartJoiner joiner = new PartJoiner(codec);
        ChangeLogEntry joined = null;
        for (int i = 0; i < values.size(); i++) {
          byte[] v = values.get(i);
          assertTrue(v.length <= limit, "part " + i + " is " + v.length + " bytes, over " + limit);
          // Each part is a record of its own: strict UTF-8, strict JSON.
          assertTrue(StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(v)).length() > 0);
          ChangeLogEntry part = codec.decode(v);
          assertEquals(e.watermark(), part.watermark());
          assertEquals(e.pos(), part.pos());
          assertEquals(i, ((Part) part.message()).index());
          joined = joiner.accept(part);
          assertEquals(i == values.size() - 1, joined != null);
        }
        assertEquals(e, joined);
        assertFalse(joiner.joining());
      }
    }
  }

  @Test
  void recordsThatAreNotPartsPassThrough() {
    PartJoiner joiner = new PartJoiner(codec);
    ChangeLogEntry begin = new ChangeLogEntry(ProtocolExamples.PRE_COMMIT, 0, new Begin(1L, null, false));
    assertSame(begin, joiner.accept(begin));
  }

  @Test
  void aRollbackBetweenPartsDiscardsThemAndTheMessageFollowsAgainWhole() {
    ChangeLogEntry e = bigInsert(awkwardText(5_000, 9), 1);
    List<byte[]> values = values(e, 1000);
    PartJoiner joiner = new PartJoiner(codec);
    assertNull(joiner.accept(codec.decode(values.get(0))));
    assertNull(joiner.accept(codec.decode(values.get(1))));
    ChangeLogEntry rollback = new ChangeLogEntry(e.watermark(), 2, new Rollback("restarted"));
    assertSame(rollback, joiner.accept(rollback));
    ChangeLogEntry joined = null;
    for (byte[] v : values) {
      joined = joiner.accept(codec.decode(v));
    }
    assertEquals(e, joined);
  }

  @Test
  void aLostPartARepeatedPartOrAForeignRecordIsAProtocolError() {
    ChangeLogEntry e = bigInsert(awkwardText(5_000, 4), 1);
    List<byte[]> values = values(e, 1000);
    assertTrue(values.size() >= 3);

    PartJoiner lost = new PartJoiner(codec);
    lost.accept(codec.decode(values.get(0)));
    ProtocolException gap = assertThrows(ProtocolException.class, () -> lost.accept(codec.decode(values.get(2))));
    assertTrue(gap.getMessage().contains("arrived where part 1"), gap.getMessage());

    PartJoiner repeated = new PartJoiner(codec);
    repeated.accept(codec.decode(values.get(0)));
    repeated.accept(codec.decode(values.get(1)));
    assertThrows(ProtocolException.class, () -> repeated.accept(codec.decode(values.get(1))));

    PartJoiner foreign = new PartJoiner(codec);
    foreign.accept(codec.decode(values.get(0)));
    ChangeLogEntry commit = new ChangeLogEntry(ProtocolExamples.COMMIT, 2, new Commit(1, null));
    ProtocolException inside = assertThrows(ProtocolException.class, () -> foreign.accept(commit));
    assertTrue(inside.getMessage().contains("are missing"), inside.getMessage());

    PartJoiner headless = new PartJoiner(codec);
    assertThrows(ProtocolException.class, () -> headless.accept(codec.decode(values.get(1))));

    PartJoiner otherPos = new PartJoiner(codec);
    otherPos.accept(codec.decode(values.get(0)));
    List<byte[]> other = values(bigInsert(awkwardText(5_000, 4), 2), 1000);
    assertThrows(ProtocolException.class, () -> otherPos.accept(codec.decode(other.get(1))));
  }

  @Test
  void partsThatDoNotAddUpToTheirSizeOrJoinIntoAControlMessageAreRefused() {
    Watermark w = ProtocolExamples.PRE_COMMIT;
    PartJoiner shortJoin = new PartJoiner(codec);
    shortJoin.accept(new ChangeLogEntry(w, 1, new Part(0, 2, 100, "{\"tag\":")));
    assertThrows(ProtocolException.class, () -> shortJoin.accept(new ChangeLogEntry(w, 1, new Part(1, 2, 100,
        "\"begin\"}"))));

    String begin = "{\"tag\":\"begin\"}";
    PartJoiner control = new PartJoiner(codec);
    control.accept(new ChangeLogEntry(w, 1, new Part(0, 2, begin.length(), begin.substring(0, 5))));
    ProtocolException e = assertThrows(ProtocolException.class, () -> control.accept(new ChangeLogEntry(w, 1,
        new Part(1, 2, begin.length(), begin.substring(5)))));
    assertTrue(e.getMessage().contains("only data messages are split"), e.getMessage());
  }

  @Test
  void aControlRecordIsNeverSplit() {
    ChangeLogEntry rollback = new ChangeLogEntry(ProtocolExamples.PRE_COMMIT, 1, new Rollback("x".repeat(5_000)));
    assertThrows(IllegalStateException.class, () -> RecordValues.of(codec, rollback, 1000));
  }

  /**
   * Pins the split form: the golden file holds the record values of an insert cut at a limit of
   * 1,000 bytes, one per line. Regenerate with {@code -Dpg2lite.updateFixtures=true}.
   */
  @Test
  void theSplitOfThePinnedExampleMatchesItsGoldenFile() throws IOException {
    ChangeLogEntry e = bigInsert("Large values are cut into parts. \"Quoted\", back\\slashed, é, €, 😀. ".repeat(30), 1);
    List<byte[]> values = values(e, 1000);
    StringBuilder lines = new StringBuilder();
    for (byte[] v : values) {
      lines.append(new String(v, StandardCharsets.UTF_8)).append('\n');
    }
    if (Boolean.getBoolean("pg2lite.updateFixtures")) {
      Files.createDirectories(SPLIT_FIXTURE.getParent());
      Files.writeString(SPLIT_FIXTURE, lines.toString(), StandardCharsets.UTF_8);
    }
    List<String> golden = Files.readAllLines(SPLIT_FIXTURE, StandardCharsets.UTF_8);
    assertEquals(values.size(), golden.size());
    PartJoiner joiner = new PartJoiner(codec);
    ChangeLogEntry joined = null;
    for (int i = 0; i < golden.size(); i++) {
      assertEquals(JSON.readTree(values.get(i)), JSON.readTree(golden.get(i)), "line " + (i + 1));
      joined = joiner.accept(codec.decode(golden.get(i)));
    }
    assertEquals(e, joined);
  }
}
