package io.pg2lite.source.value;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.debezium.connector.postgresql.connection.DateTimeFormat;
import io.pg2lite.protocol.value.PostgresTimes;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Reading timestamptz from Postgres' text (issue 32) gives, for every value Debezium could read,
 * the instant Debezium read: the live stream's values did not move when the reading did.
 */
class PostgresTextAgainstDebeziumTest {
  /** Debezium's reading of pgoutput's text, as the log's UTC text. */
  private static String throughDebezium(String postgresText) {
    OffsetDateTime parsed = DateTimeFormat.get().timestampWithTimeZoneToOffsetDateTime(postgresText);
    Instant i = parsed.toInstant();
    String s = DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(i.atOffset(ZoneOffset.UTC).toLocalDateTime());
    return s + "Z";
  }

  /** Postgres' ISO output: space, fraction of 1-6 digits without trailing zeros, offset as +HH[:MM[:SS]]. */
  private static String postgresText(OffsetDateTime t) {
    String s = t.toLocalDateTime().format(DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss"));
    int micros = t.getNano() / 1000;
    if (micros != 0) {
      s += "." + String.format("%06d", micros).replaceAll("0+$", "");
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
  void everyInstantReadsAsDebeziumReadIt() {
    Random random = new Random(17);
    long min = Instant.parse("0001-01-01T00:00:00Z").getEpochSecond();
    long max = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
    ZoneOffset[] offsets = {ZoneOffset.UTC, ZoneOffset.ofHours(2), ZoneOffset.ofHours(-8),
        ZoneOffset.ofHoursMinutes(5, 30), ZoneOffset.ofHoursMinutes(-3, -30), ZoneOffset.ofHoursMinutesSeconds(0, 53, 28),
        ZoneOffset.ofHours(14), ZoneOffset.ofHours(-12), ZoneOffset.ofHoursMinutesSeconds(0, -25, -21)};
    for (int i = 0; i < 50_000; i++) {
      long second = min + 86_400 + (long) (random.nextDouble() * (max - min - 2 * 86_400));
      int micros = switch (i % 3) {
        case 0 -> 0;
        case 1 -> random.nextInt(1_000_000);
        default -> random.nextInt(10) * 100_000;
      };
      OffsetDateTime t = Instant.ofEpochSecond(second, micros * 1000L).atOffset(offsets[i % offsets.length]);
      String text = postgresText(t);
      String debezium = throughDebezium(text);
      // java's ISO_LOCAL_DATE_TIME prints ":00" seconds and the fraction in 3/6/9 digits; compare instants
      assertEquals(Instant.parse(debezium), Instant.parse(PostgresTimes.timestampTz(text)), text);
    }
  }
}
