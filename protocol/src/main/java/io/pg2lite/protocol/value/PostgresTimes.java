package io.pg2lite.protocol.value;

import java.time.LocalDate;
import java.time.LocalDateTime;

/**
 * Dates and times as Postgres prints them with {@code DateStyle = ISO}, in any {@code TimeZone},
 * read into the change log's one form for each type (docs/type-mapping.md):
 * <ul>
 *   <li>years in ISO 8601's astronomical numbering: Postgres' {@code 0044-03-15 BC} is
 *       {@code -0043-03-15} (1 BC is year 0), and years after 9999 have no {@code +};</li>
 *   <li>a {@code T} between date and time; timestamptz and timetz moved to UTC, suffix {@code Z};</li>
 *   <li>{@code infinity} and {@code -infinity} as Postgres spells them, in date, timestamp and
 *       timestamptz alike;</li>
 *   <li>the fraction as Postgres prints it (no trailing zeros), and {@code 24:00:00} kept.</li>
 * </ul>
 * Text only, no java.time round trip for the common case: the whole Postgres range (4713 BC to
 * 5874897 AD for dates, 294276 AD for timestamps) and 24:00:00 are outside what java.time or
 * Debezium's 64-bit microseconds read exactly.
 */
public final class PostgresTimes {
  private PostgresTimes() {}

  private static final String BC = " BC";

  /** {@code YYYY-MM-DD[ BC]} or infinity. */
  public static String date(String s) {
    return isInfinity(s) ? s : astronomical(s);
  }

  /** {@code YYYY-MM-DD HH:MM:SS[.f][ BC]} or infinity. */
  public static String timestamp(String s) {
    if (isInfinity(s)) {
      return s;
    }
    String a = astronomical(s);
    int space = a.indexOf(' ', 1);
    return a.substring(0, space) + 'T' + a.substring(space + 1);
  }

  /**
   * {@code YYYY-MM-DD HH:MM:SS[.f]±HH[:MM[:SS]][ BC]} or infinity, moved to UTC. The offset is the
   * printing session's zone: Postgres stores the instant, so only the UTC form is the value.
   */
  public static String timestampTz(String s) {
    if (isInfinity(s)) {
      return s;
    }
    String a = astronomical(s);
    int space = a.indexOf(' ', 1);
    String time = a.substring(space + 1);
    int sign = offsetStart(time);
    int offset = offsetSeconds(time.substring(sign));
    String clock = time.substring(0, sign);
    String date = a.substring(0, space);
    if (offset == 0) {
      return date + 'T' + clock + 'Z';
    }
    int dot = clock.indexOf('.');
    String fraction = dot < 0 ? "" : clock.substring(dot);
    int seconds = secondOfDay(dot < 0 ? clock : clock.substring(0, dot));
    LocalDateTime utc = localDate(date).atStartOfDay().plusSeconds(seconds - (long) offset);
    return year(utc.toLocalDate()) + 'T' + clock(utc.toLocalTime().toSecondOfDay()) + fraction + 'Z';
  }

  /**
   * {@code HH:MM:SS[.f]±HH[:MM[:SS]]}, moved to UTC on the 24-hour clock, as Postgres' own
   * {@code AT TIME ZONE 'UTC'} does (so {@code 24:00:00+00} is {@code 00:00:00Z}): a timetz is a
   * time of day, and the log keeps one form of each.
   */
  public static String timeTz(String s) {
    int sign = offsetStart(s);
    String clock = s.substring(0, sign);
    int dot = clock.indexOf('.');
    String fraction = dot < 0 ? "" : clock.substring(dot);
    int seconds = secondOfDay(dot < 0 ? clock : clock.substring(0, dot)) - offsetSeconds(s.substring(sign));
    return clock(Math.floorMod(seconds, 86_400)) + fraction + 'Z';
  }

  /** Whether Postgres printed {@code infinity} or {@code -infinity}. */
  public static boolean isInfinity(String s) {
    return "infinity".equals(s) || "-infinity".equals(s);
  }

  /**
   * {@code s} with its year in astronomical numbering and the {@code BC} suffix gone; unchanged
   * when it has none. Postgres prints at least four year digits, and so does the log.
   */
  static String astronomical(String s) {
    if (!s.endsWith(BC)) {
      return s;
    }
    String ad = s.substring(0, s.length() - BC.length());
    int dash = ad.indexOf('-');
    long year = 1 - Long.parseLong(ad.substring(0, dash));
    String digits = Long.toString(Math.abs(year));
    return (year < 0 ? "-" : "") + "0".repeat(Math.max(0, 4 - digits.length())) + digits + ad.substring(dash);
  }

  /** Where the {@code ±HH} offset of a time starts (after {@code HH:MM:SS[.f]}). */
  private static int offsetStart(String time) {
    for (int i = 8; i < time.length(); i++) {
      char c = time.charAt(i);
      if (c == '+' || c == '-') {
        return i;
      }
    }
    throw new IllegalArgumentException("no UTC offset");
  }

  /** {@code ±HH[:MM[:SS]]} in seconds east of UTC. */
  private static int offsetSeconds(String offset) {
    String[] parts = offset.substring(1).split(":", -1);
    if (parts.length > 3) {
      throw new IllegalArgumentException("unreadable UTC offset " + offset);
    }
    int seconds = 0;
    int unit = 3600;
    for (String p : parts) {
      seconds += Integer.parseInt(p) * unit;
      unit /= 60;
    }
    return offset.charAt(0) == '-' ? -seconds : seconds;
  }

  /** {@code HH:MM:SS} (24:00:00 included) in seconds. */
  private static int secondOfDay(String hms) {
    if (hms.length() != 8 || hms.charAt(2) != ':' || hms.charAt(5) != ':') {
      throw new IllegalArgumentException("unreadable time " + hms);
    }
    return Integer.parseInt(hms.substring(0, 2)) * 3600 + Integer.parseInt(hms.substring(3, 5)) * 60
        + Integer.parseInt(hms.substring(6, 8));
  }

  /** A date in astronomical numbering ({@code -0043-03-15}, {@code 123456-07-08}). */
  private static LocalDate localDate(String date) {
    int dash = date.indexOf('-', 1);
    return LocalDate.of(Integer.parseInt(date.substring(0, dash)), Integer.parseInt(date.substring(dash + 1, dash + 3)),
        Integer.parseInt(date.substring(dash + 4, dash + 6)));
  }

  /** The date's text in the log's form: java.time writes {@code +10000-01-01}, Postgres no {@code +}. */
  private static String year(LocalDate d) {
    String s = d.toString();
    return s.startsWith("+") ? s.substring(1) : s;
  }

  private static String clock(int secondOfDay) {
    return two(secondOfDay / 3600) + ':' + two(secondOfDay / 60 % 60) + ':' + two(secondOfDay % 60);
  }

  private static String two(int v) {
    return v < 10 ? "0" + v : Integer.toString(v);
  }
}
