package io.pg2lite.source.debezium;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The change log's one text form for dates and times (docs/type-mapping.md): ISO 8601 with a
 * {@code T}, seconds always present, the fraction trimmed of trailing zeros as Postgres prints
 * it, {@code Z} for timestamptz (always UTC). One form per type means two replicas of the same
 * value hold the same string, whatever path the value took.
 */
final class TemporalText {
  private TemporalText() {}

  static String date(long epochDay) {
    return year(LocalDate.ofEpochDay(epochDay).toString());
  }

  static String time(long nanoOfDay) {
    LocalTime t = LocalTime.ofNanoOfDay(nanoOfDay);
    return twoDigits(t.getHour()) + ":" + twoDigits(t.getMinute()) + ":" + twoDigits(t.getSecond()) + fraction(t.getNano());
  }

  static String timestamp(long epochSecond, long nanos) {
    LocalDateTime t = LocalDateTime.ofEpochSecond(epochSecond, (int) nanos, ZoneOffset.UTC);
    return year(t.toLocalDate().toString()) + "T" + time(t.toLocalTime().toNanoOfDay());
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

  /**
   * Years after 9999 as Postgres prints them: java.time writes {@code +10000-01-01}, Postgres
   * (and so a backfill copy) {@code 10000-01-01}. Both forms sort the same way only without the
   * sign, and the log has one form per value.
   */
  private static String year(String isoDate) {
    return isoDate.startsWith("+") ? isoDate.substring(1) : isoDate;
  }

  private static final Pattern DEBEZIUM_INTERVAL =
      Pattern.compile("P(-?\\d+)Y(-?\\d+)M(-?\\d+)DT(-?\\d+)H(-?\\d+)M(-?[0-9.]+)S");
  private static final long MICROS_PER_SECOND = 1_000_000L;
  private static final long MICROS_PER_MINUTE = 60 * MICROS_PER_SECOND;
  private static final long MICROS_PER_HOUR = 60 * MICROS_PER_MINUTE;

  /**
   * An interval in Postgres' {@code IntervalStyle = iso_8601} text, the form a backfill copy reads
   * and docs/type-mapping.md promises: zero fields left out ({@code P14DT6H9M47S}), {@code PT0S}
   * for zero, each field with its own sign. Debezium's string mode writes every field
   * ({@code P0Y0M14DT6H9M47S}) from the fields JDBC parsed out of Postgres' default style.
   *
   * <p>Postgres keeps an interval as months, days and microseconds and prints fields derived from
   * them with C's truncating division (Java's {@code /} and {@code %}), so the Debezium fields are
   * first folded back into those three numbers: then any spelling of one interval prints the same.
   */
  static String interval(String debeziumIso) {
    Matcher m = DEBEZIUM_INTERVAL.matcher(debeziumIso);
    if (!m.matches()) {
      throw new IllegalArgumentException("interval value " + debeziumIso + " is not in Debezium's P#Y#M#DT#H#M#S form");
    }
    long months = Long.parseLong(m.group(1)) * 12 + Long.parseLong(m.group(2));
    long days = Long.parseLong(m.group(3));
    long micros = Math.addExact(Math.addExact(Math.multiplyExact(Long.parseLong(m.group(4)), MICROS_PER_HOUR),
        Math.multiplyExact(Long.parseLong(m.group(5)), MICROS_PER_MINUTE)),
        new BigDecimal(m.group(6)).movePointRight(6).setScale(0, RoundingMode.HALF_EVEN).longValueExact());
    return postgresIso8601(months, days, micros);
  }

  /** Postgres' EncodeInterval for INTSTYLE_ISO_8601, from the stored months, days and microseconds. */
  static String postgresIso8601(long months, long days, long micros) {
    long year = months / 12;
    long mon = months % 12;
    long hour = micros / MICROS_PER_HOUR;
    long min = micros / MICROS_PER_MINUTE % 60;
    long sec = micros / MICROS_PER_SECOND % 60;
    long fsec = micros % MICROS_PER_SECOND;
    if (year == 0 && mon == 0 && days == 0 && hour == 0 && min == 0 && sec == 0 && fsec == 0) {
      return "PT0S";
    }
    StringBuilder out = new StringBuilder("P");
    part(out, year, 'Y');
    part(out, mon, 'M');
    part(out, days, 'D');
    if (hour != 0 || min != 0 || sec != 0 || fsec != 0) {
      out.append('T');
    }
    part(out, hour, 'H');
    part(out, min, 'M');
    if (sec != 0 || fsec != 0) {
      if (sec < 0 || fsec < 0) {
        out.append('-');
      }
      out.append(Math.abs(sec)).append(fraction((int) Math.abs(fsec) * 1000)).append('S');
    }
    return out.toString();
  }

  private static void part(StringBuilder out, long value, char unit) {
    if (value != 0) {
      out.append(value).append(unit);
    }
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
