package io.pg2lite.source.debezium;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;

/**
 * The change log's one text form for dates and times (docs/type-mapping.md): ISO 8601 with a
 * {@code T}, seconds always present, the fraction trimmed of trailing zeros as Postgres prints
 * it, {@code Z} for timestamptz (always UTC). One form per type means two replicas of the same
 * value hold the same string, whatever path the value took.
 */
final class TemporalText {
  private TemporalText() {}

  static String date(long epochDay) {
    return LocalDate.ofEpochDay(epochDay).toString();
  }

  static String time(long nanoOfDay) {
    LocalTime t = LocalTime.ofNanoOfDay(nanoOfDay);
    return twoDigits(t.getHour()) + ":" + twoDigits(t.getMinute()) + ":" + twoDigits(t.getSecond()) + fraction(t.getNano());
  }

  static String timestamp(long epochSecond, long nanos) {
    LocalDateTime t = LocalDateTime.ofEpochSecond(epochSecond, (int) nanos, ZoneOffset.UTC);
    return t.toLocalDate() + "T" + time(t.toLocalTime().toNanoOfDay());
  }

  /** A timestamptz as Debezium prints it (any offset), in the log's UTC form. */
  static String timestampTz(String isoWithOffset) {
    Instant i = OffsetDateTime.parse(isoWithOffset).toInstant();
    return timestamp(i.getEpochSecond(), i.getNano()) + "Z";
  }

  /** A timetz as Debezium prints it (any offset), in the log's UTC form. */
  static String timeTz(String isoWithOffset) {
    return time(OffsetTime.parse(isoWithOffset).withOffsetSameInstant(ZoneOffset.UTC).toLocalTime().toNanoOfDay()) + "Z";
  }

  private static String fraction(int nanos) {
    if (nanos == 0) {
      return "";
    }
    String digits = String.format("%09d", nanos);
    int end = digits.length();
    while (digits.charAt(end - 1) == '0') {
      end--;
    }
    return "." + digits.substring(0, end);
  }

  private static String twoDigits(int v) {
    return v < 10 ? "0" + v : Integer.toString(v);
  }
}
