package io.pg2lite.source.value;

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
public final class TemporalText {
  private TemporalText() {}

  public static String date(long epochDay) {
    return year(LocalDate.ofEpochDay(epochDay).toString());
  }

  public static String time(long nanoOfDay) {
    LocalTime t = LocalTime.ofNanoOfDay(nanoOfDay);
    return twoDigits(t.getHour()) + ":" + twoDigits(t.getMinute()) + ":" + twoDigits(t.getSecond()) + fraction(t.getNano());
  }

  public static String timestamp(long epochSecond, long nanos) {
    LocalDateTime t = LocalDateTime.ofEpochSecond(epochSecond, (int) nanos, ZoneOffset.UTC);
    return year(t.toLocalDate().toString()) + "T" + time(t.toLocalTime().toNanoOfDay());
  }

  /**
   * A timestamptz as Debezium prints it (any offset), in the log's UTC form. Debezium prints UTC
   * values ({@code 2025-01-02T03:04:05.123456Z}), which already are the log's form once the
   * fraction is trimmed: that common case is copied without parsing (a profile showed the parse
   * and re-format at a sixth of the source task's thread); any other form goes through
   * {@link #parsedTimestampTz}, and both give the same text for every value.
   */
  public static String timestampTz(String isoWithOffset) {
    String fast = utcFastPath(isoWithOffset);
    return fast != null ? fast : parsedTimestampTz(isoWithOffset);
  }

  /** The general path: parsed, moved to UTC, printed in the log's form. */
  public static String parsedTimestampTz(String isoWithOffset) {
    Instant i = OffsetDateTime.parse(isoWithOffset).toInstant();
    return timestamp(i.getEpochSecond(), i.getNano()) + "Z";
  }

  /**
   * {@code YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z} with fields in range, in the log's form (fraction
   * trimmed of trailing zeros); null for anything else (signed or 5-digit years, offsets).
   */
  private static String utcFastPath(String s) {
    int n = s.length();
    if (n < 20 || n > 30 || s.charAt(n - 1) != 'Z' || !isDateTime(s, 'T')) {
      return null;
    }
    int end = n - 1; // the Z
    if (end == 19) {
      return s;
    }
    if (s.charAt(19) != '.' || end == 20) {
      return null;
    }
    for (int i = 20; i < end; i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return null;
      }
    }
    return s.substring(0, 19) + trimmedFraction(s, end) + "Z";
  }

  /**
   * Whether {@code s} starts with {@code YYYY-MM-DD<separator>HH:MM:SS}, every field in range
   * (at least 19 characters are there: callers check the length first).
   */
  private static boolean isDateTime(String s, char separator) {
    if (s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != separator || s.charAt(13) != ':'
        || s.charAt(16) != ':') {
      return false;
    }
    for (int i : DIGIT_POSITIONS) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    int month = two(s, 5);
    int day = two(s, 8);
    return month >= 1 && month <= 12 && day >= 1 && (day <= 28 || day <= LocalDate.of(four(s), month, 1).lengthOfMonth())
        && two(s, 11) <= 23 && two(s, 14) <= 59 && two(s, 17) <= 59;
  }

  /** The fraction at 19 (the dot) up to {@code end}, trailing zeros trimmed; "" when none is left. */
  private static String trimmedFraction(String s, int end) {
    int last = end - 1;
    while (last >= 20 && s.charAt(last) == '0') {
      last--;
    }
    return last < 20 ? "" : s.substring(19, last + 1);
  }

  /** Postgres' {@code time '24:00:00'}: a valid time (the end of a day) that java.time cannot hold. */
  public static final String END_OF_DAY = "24:00:00";

  /** Whether Postgres printed {@code infinity} or {@code -infinity} (date, timestamp, timestamptz). */
  public static boolean isInfinity(String postgresText) {
    return "infinity".equals(postgresText) || "-infinity".equals(postgresText);
  }

  /**
   * A timestamptz as Postgres prints it with {@code DateStyle=ISO} (the style pgjdbc sets on
   * every connection): {@code YYYY-MM-DD HH:MM:SS[.f{1,6}]±HH[:MM[:SS]]}, in the log's UTC form,
   * the same text {@link #timestampTz} gives for Debezium's reading of that value. Null for any
   * other form (BC dates, years past 9999, infinity), which then takes Debezium's path: the fast
   * path only has to be right where it answers.
   */
  public static String timestampTzFromPostgres(String s) {
    int n = s.length();
    if (n < 22 || n > 35 || !isDateTime(s, ' ') || four(s) < 1) {
      return null;
    }
    int at = 19;
    int fractionEnd = at;
    if (s.charAt(at) == '.') {
      at++;
      while (at < n && s.charAt(at) >= '0' && s.charAt(at) <= '9') {
        at++;
      }
      if (at == 20 || at > 26) {
        return null;
      }
      fractionEnd = at;
    }
    if (at + 3 > n || (s.charAt(at) != '+' && s.charAt(at) != '-') || !digits(s, at + 1)) {
      return null;
    }
    int sign = s.charAt(at) == '-' ? -1 : 1;
    if (two(s, at + 1) > 15) {
      return null; // Postgres keeps offsets within ±15:59:59
    }
    int offset = two(s, at + 1) * 3600;
    at += 3;
    for (int unit = 60; at < n; unit /= 60) { // optional :MM, then :SS
      if (unit == 0 || at + 3 > n || s.charAt(at) != ':' || !digits(s, at + 1) || two(s, at + 1) > 59) {
        return null;
      }
      offset += two(s, at + 1) * unit;
      at += 3;
    }
    String fraction = trimmedFraction(s, fractionEnd); // Postgres prints no trailing zeros, but be exact
    if (offset == 0) {
      return s.substring(0, 10) + "T" + s.substring(11, 19) + fraction + "Z";
    }
    int year = four(s);
    if (year < 2 || year > 9998) {
      return null; // the shift could leave the 4-digit form: let the general path decide
    }
    long epochSecond = LocalDateTime.of(year, two(s, 5), two(s, 8), two(s, 11), two(s, 14), two(s, 17))
        .toEpochSecond(ZoneOffset.UTC) - (long) sign * offset;
    LocalDateTime utc = LocalDateTime.ofEpochSecond(epochSecond, 0, ZoneOffset.UTC);
    return utc.toLocalDate() + "T" + twoDigits(utc.getHour()) + ":" + twoDigits(utc.getMinute()) + ":"
        + twoDigits(utc.getSecond()) + fraction + "Z";
  }

  private static boolean digits(String s, int at) {
    return s.charAt(at) >= '0' && s.charAt(at) <= '9' && s.charAt(at + 1) >= '0' && s.charAt(at + 1) <= '9';
  }

  /** Where {@code YYYY-MM-DDTHH:MM:SS} has digits. */
  private static final int[] DIGIT_POSITIONS = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18};

  private static int two(String s, int at) {
    return (s.charAt(at) - '0') * 10 + (s.charAt(at + 1) - '0');
  }

  private static int four(String s) {
    return two(s, 0) * 100 + two(s, 2);
  }

  /** A timetz as Debezium prints it (any offset), in the log's UTC form. */
  public static String timeTz(String isoWithOffset) {
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
  public static String interval(String debeziumIso) {
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
  public static String postgresIso8601(long months, long days, long micros) {
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
    // nanos is 1..999,999,999: nine digits with leading zeros, trailing zeros trimmed (no
    // String.format: it showed in the source's profile)
    char[] digits = new char[9];
    int v = nanos;
    for (int i = 8; i >= 0; i--) {
      digits[i] = (char) ('0' + v % 10);
      v /= 10;
    }
    int end = 9;
    while (digits[end - 1] == '0') {
      end--;
    }
    return "." + new String(digits, 0, end);
  }

  private static String twoDigits(int v) {
    return v < 10 ? "0" + v : Integer.toString(v);
  }
}
