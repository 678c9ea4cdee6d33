package io.pg2lite.source.debezium;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The timestamptz fast path gives exactly what parsing gives, for every form Debezium prints. */
class TemporalTextTest {
  private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSXXX");

  @Test
  void fastPathEqualsTheParsedPathOnRandomInstants() {
    Random random = new Random(13);
    // 0001-01-01 to 9999-12-31, whole seconds and every fraction length, UTC and other offsets
    long min = Instant.parse("0001-01-01T00:00:00Z").getEpochSecond();
    long max = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
    for (int i = 0; i < 50_000; i++) {
      long second = min + (long) (random.nextDouble() * (max - min));
      int nanos = switch (i % 4) {
        case 0 -> 0;
        case 1 -> random.nextInt(1_000_000) * 1000;
        case 2 -> random.nextInt(10) * 100_000_000;
        default -> random.nextInt(1_000_000_000);
      };
      ZoneOffset offset = i % 5 == 0 ? ZoneOffset.ofHoursMinutes(5, 30) : ZoneOffset.UTC;
      OffsetDateTime t = Instant.ofEpochSecond(second, nanos).atOffset(offset);
      for (String printed : new String[] {t.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME), t.format(MICROS)}) {
        assertEquals(TemporalText.parsedTimestampTz(printed), TemporalText.timestampTz(printed), printed);
      }
    }
  }

  @Test
  void edgeForms() {
    for (String s : new String[] {"2025-01-02T03:04:05Z", "2025-01-02T03:04:05.000000Z", "2025-01-02T03:04:05.1Z",
        "2025-01-02T03:04:05.123456789Z", "0001-01-01T00:00:00Z", "2024-02-29T23:59:59.999999Z",
        "2025-01-02T03:04:05.5+02:00", "+10000-01-01T00:00:00Z", "-0043-03-15T00:00:00Z"}) {
      assertEquals(TemporalText.parsedTimestampTz(s), TemporalText.timestampTz(s), s);
    }
    assertEquals("2025-01-02T03:04:05.1Z", TemporalText.timestampTz("2025-01-02T03:04:05.100000Z"));
    assertEquals("2025-01-02T03:04:05Z", TemporalText.timestampTz("2025-01-02T03:04:05.000Z"));
  }
}
