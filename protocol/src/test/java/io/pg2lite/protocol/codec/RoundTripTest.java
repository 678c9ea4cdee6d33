package io.pg2lite.protocol.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.MessageKind;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.testing.ProtocolExamples;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RoundTripTest {
  private final ChangeLogCodec codec = new ChangeLogCodec();

  @Test
  void everyMessageKindRoundTrips() {
    for (ChangeLogEntry entry : ProtocolExamples.byTag().values()) {
      assertEquals(entry, codec.decode(codec.encode(entry)), entry.message().tag());
    }
  }

  @Test
  void int64ExtremesStayExact() {
    Row row = Row.of("max", Value.of(Long.MAX_VALUE), "min", Value.of(Long.MIN_VALUE),
        "beyond53", Value.of((1L << 53) + 1));
    ChangeLogEntry back = roundTrip(row);
    Row decoded = ((DataChange.Insert) back.message()).row();
    assertEquals(new Value.Int(Long.MAX_VALUE), decoded.get("max"));
    assertEquals(new Value.Int(Long.MIN_VALUE), decoded.get("min"));
    assertEquals(new Value.Int(9_007_199_254_740_993L), decoded.get("beyond53"));
  }

  @Test
  void absentColumnsStayAbsentAndNullsStayNull() {
    Relation r = new Relation("public", "t", RowKey.of("id"));
    ChangeLogEntry e = ChangeMessages.after("0/10").begin(1)
        .update(r, null, Row.of("id", Value.of(1), "note", Value.NULL)).commit("0/20").entries().get(1);
    Row decoded = ((DataChange.Update) codec.decode(codec.encode(e)).message()).row();
    assertTrue(decoded.contains("note"));
    assertEquals(Value.NULL, decoded.get("note"));
    assertFalse(decoded.contains("body"), "an unchanged TOAST column is absent, not null");
    assertTrue(codec.encodeToString(e).contains("\"note\":null"));
    assertFalse(codec.encodeToString(e).contains("body"));
  }

  @Test
  void floatsRoundTripBitForBit() {
    Random random = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      double d = Double.longBitsToDouble(random.nextLong());
      if (!Double.isFinite(d)) {
        continue;
      }
      Value.Float v = (Value.Float) ((DataChange.Insert) roundTrip(Row.of("f", new Value.Float(d))).message())
          .row().get("f");
      assertEquals(Double.doubleToLongBits(d), Double.doubleToLongBits(v.value()), () -> "for " + d);
    }
  }

  /** Property: random rows of every value shape survive the trip exactly. */
  @Test
  void randomRowsRoundTrip() {
    Random random = new Random(11);
    for (int i = 0; i < 5_000; i++) {
      Row.Builder b = Row.builder();
      int columns = random.nextInt(8);
      for (int c = 0; c < columns; c++) {
        b.put("c" + c + randomText(random, 3), randomValue(random, 2));
      }
      Row row = b.build();
      assertEquals(row, ((DataChange.Insert) roundTrip(row).message()).row());
    }
  }

  @Test
  void aStreamBuiltByChangeMessagesFollowsTheWatermarkRules() {
    Relation r = new Relation("public", "t", RowKey.of("id"));
    List<ChangeLogEntry> log = ChangeMessages.after("0/100").begin(5)
        .insert(r, Row.of("id", Value.of(1))).insert(r, Row.of("id", Value.of(2))).commit("0/200")
        .beginBackfill().commitBackfill().entries();
    Watermark pre = Watermark.fromLsn("0/100").nextMajor();
    assertEquals(List.of(pre, pre, pre, Watermark.fromLsn("0/200")), log.subList(0, 4).stream()
        .map(ChangeLogEntry::watermark).toList());
    assertEquals(List.of(0L, 1L, 2L, 3L), log.subList(0, 4).stream().map(ChangeLogEntry::pos).toList());
    assertEquals(MessageKind.COMMIT, log.get(3).kind());
    assertEquals(Watermark.fromLsn("0/200").nextMinor(), log.get(4).watermark());
    for (ChangeLogEntry e : log) {
      assertEquals(e, codec.decode(codec.encode(e)));
    }
  }

  private ChangeLogEntry roundTrip(Row row) {
    ChangeLogEntry e = new ChangeLogEntry(Watermark.parse("0a"), 1,
        new DataChange.Insert(new Relation("s", "t", RowKey.of("id")), row));
    return codec.decode(codec.encode(e));
  }

  private static Value randomValue(Random random, int depth) {
    switch (random.nextInt(depth > 0 ? 7 : 6)) {
      case 0:
        return Value.NULL;
      case 1:
        return Value.of(random.nextBoolean());
      case 2:
        return Value.of(random.nextLong());
      case 3:
        return new Value.Float(random.nextGaussian() * Math.pow(10, random.nextInt(40) - 20));
      case 4:
        return Value.of(randomText(random, 20));
      case 5:
        return Value.of(random.nextInt(1000));
      default:
        List<Value> elements = new ArrayList<>();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          elements.add(randomValue(random, depth - 1));
        }
        return new Value.Array(elements);
    }
  }

  /** Text with quotes, backslashes, control characters, non-BMP characters. */
  private static String randomText(Random random, int max) {
    String alphabet = "ab\"\\\n\t\u0000é€\uD83D\uDE00 ;'";
    StringBuilder sb = new StringBuilder();
    int n = random.nextInt(max + 1);
    for (int i = 0; i < n; i++) {
      int k = random.nextInt(alphabet.length());
      char c = alphabet.charAt(k);
      if (Character.isHighSurrogate(c)) {
        sb.append(c).append(alphabet.charAt(k + 1));
      } else if (!Character.isLowSurrogate(c)) {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
