package io.pg2lite.source.value;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.debezium.connector.postgresql.connection.DateTimeFormat;
import io.debezium.time.ZonedTimestamp;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The timestamptz fast paths give exactly what parsing gives: for every form Debezium prints, and
 * for every form Postgres sends over pgoutput, against Debezium's own reading of that text.
 */
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

  /** What the log held for a pgoutput timestamptz text before the fast path: Debezium's parse, its print, ours. */
  private static String throughDebezium(String postgresText) {
    OffsetDateTime parsed = DateTimeFormat.get().timestampWithTimeZoneToOffsetDateTime(postgresText);
    return TemporalText.timestampTz(ZonedTimestamp.toIsoString(parsed, null));
  }

  /** Postgres' ISO output: space, fraction of 1-6 digits without trailing zeros, offset as +HH[:MM[:SS]]. */
  private static String postgresText(OffsetDateTime t) {
    String s = t.toLocalDateTime().format(DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss"));
    int micros = t.getNano() / 1000;
    if (micros != 0) {
      String f = String.format("%06d", micros);
      s += "." + f.replaceAll("0+$", "");
    }
    int total = t.getOffset().getTotalSeconds();
    int abs = Math.abs(total);
    s += (total < 0 ? "-" : "+") + String.format("%02d", abs / 3600);
    if (abs % 3600 != 0) {
      s += String.format(":%02d", abs / 60 % 60);
      if (abs % 60 != 0) {
        s += String.format(":%02d", abs % 60);
      }
    }
    return s;
  }

  @Test
  void postgresTextFastPathEqualsDebeziumsReading() {
    Random random = new Random(17);
    long min = Instant.parse("0001-01-01T00:00:00Z").getEpochSecond();
    long max = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
    ZoneOffset[] offsets = {ZoneOffset.UTC, ZoneOffset.ofHours(2), ZoneOffset.ofHours(-8),
        ZoneOffset.ofHoursMinutes(5, 30), ZoneOffset.ofHoursMinutes(-3, -30), ZoneOffset.ofHoursMinutesSeconds(0, 53, 28),
        ZoneOffset.ofHours(14), ZoneOffset.ofHours(-12), ZoneOffset.ofHoursMinutes(10, 30),
        ZoneOffset.ofHoursMinutes(-9, -30), ZoneOffset.ofHoursMinutesSeconds(0, -25, -21)};
    int fast = 0;
    for (int i = 0; i < 50_000; i++) {
      long second = min + (long) (random.nextDouble() * (max - min));
      int micros = switch (i % 3) {
        case 0 -> 0;
        case 1 -> random.nextInt(1_000_000);
        default -> random.nextInt(10) * 100_000;
      };
      OffsetDateTime t = Instant.ofEpochSecond(second, micros * 1000L).atOffset(offsets[i % offsets.length]);
      String text = postgresText(t);
      String got = TemporalText.timestampTzFromPostgres(text);
      if (got != null) {
        fast++;
        assertEquals(throughDebezium(text), got, text);
      }
    }
    // Nearly every value takes the fast path (only the first and last two years with an offset do not).
    assertTrue(fast > 49_900, "fast path taken for " + fast + " of 50,000");
  }

  @Test
  void postgresTextEdgeForms() {
    for (String s : new String[] {"2025-01-02 03:04:05+00", "2025-01-02 03:04:05.1+00", "2025-01-02 03:04:05.123456+00",
        "2024-02-29 23:59:59.999999+00", "2025-01-01 00:30:00+01", "2024-12-31 23:30:00-01", "1900-01-01 00:00:00+00:53:28",
        "2025-03-01 00:00:00+05:30", "0001-01-01 00:00:00+00", "9999-12-31 23:59:59.999999+00"}) {
      assertEquals(throughDebezium(s), TemporalText.timestampTzFromPostgres(s), s);
    }
    // Forms the fast path leaves to Debezium (it answers null, never a wrong text).
    for (String s : new String[] {"infinity", "-infinity", "0044-03-15 12:00:00+00 BC", "10000-01-01 00:00:00+00",
        "2025-02-30 00:00:00+00", "2025-01-02 03:04:05.1234567+00", "2025-01-02 03:04:05.+00", "2025-01-02 03:04:05",
        "2025-01-02T03:04:05+00", "2025-01-02 03:04:05+00:00:00:00", "2025-01-02 24:00:00+00", "0001-01-01 00:30:00+01",
        "0000-01-01 00:00:00+00", "2025-01-02 03:04:05+19", "2025-01-02 03:04:05+05:75", "2025-01-02 03:04:05+05:30:60"}) {
      assertNull(TemporalText.timestampTzFromPostgres(s), s);
    }
    // Every prefix of valid texts: null or the value, never an exception.
    for (String full : new String[] {"2025-01-02 03:04:05.123456+05:30:15", "2025-01-02 03:04:05-08"}) {
      for (int end = 0; end < full.length(); end++) {
        String prefix = full.substring(0, end);
        String got = TemporalText.timestampTzFromPostgres(prefix);
        if (got != null) {
          assertEquals(throughDebezium(prefix), got, prefix);
        }
      }
    }
  }

  @Test
  void debeziumsColumnTextIsReachable() {
    // The fast path reads the text Debezium's pgoutput column keeps (PgOutputText); a Debezium
    // upgrade that moves it must be noticed here, not as a silent slowdown.
    assertTrue(PgOutputText.available(), "PgOutputMessageDecoder$1.valueStr not found in this Debezium build");
  }

  /** Issue 32: the values the decoder takes from Postgres' text as they are. */
  @Test
  void infinityAndTheEndOfTheDayAreRecognisedExactly() {
    assertTrue(TemporalText.isInfinity("infinity"));
    assertTrue(TemporalText.isInfinity("-infinity"));
    assertFalse(TemporalText.isInfinity("Infinity"), "Postgres prints it lower case; anything else is a date");
    assertFalse(TemporalText.isInfinity("+infinity"));
    assertEquals("24:00:00", TemporalText.END_OF_DAY);
    assertNull(TemporalText.timestampTzFromPostgres("infinity"), "the fast path answers only for dates and times");
  }
}
