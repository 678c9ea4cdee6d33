package io.pg2lite.testkit.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * SQL literals for generated values, drawn from the workload's {@link Random}: ordinary values
 * most of the time, the edge cases of each type (the {@link FuzzFeature}s that are enabled) often
 * enough that every seed meets several. Literals are plain SQL with
 * {@code standard_conforming_strings=on} (a backslash is an ordinary character).
 */
final class Literals {
  private static final String[] TEXTS = {"", "a", "it's", "say \"hi\"", "back\\slash", "comma,{brace}", "NULL",
      "null", "tab\there", "line\nbreak", "héllo ☃ 😀", "  spaces  ", "\\x00ff", "semi;colon", "ünïcödé ß"};
  private static final String[] JSONS = {"{\"a\": \"q\\\"uote\", \"b\": [1, 2.50, null]}", "\"\\u00e9 é\"", "[]",
      "{\"nested\": {\"k\": \"v,w\", \"e\": {}}}", "  {\"spaces\" :  1 }  ", "123", "null", "true",
      "{\"emoji\": \"😀\", \"esc\": \"line\\nbreak\\ttab\"}", "{\"b\": 2, \"a\": 1, \"a\": 3}", "-0.0e10",
      "{\"big\": 123456789012345678901234567890}"};

  private final Random random;
  private final Set<FuzzFeature> features;

  Literals(Random random, Set<FuzzFeature> features) {
    this.random = random;
    this.features = features;
  }

  private boolean on(FuzzFeature f) {
    return features.contains(f);
  }

  /** A string literal: {@code 'it''s'}. */
  static String quote(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  /** A non-NULL literal of {@code type}, cast to it. */
  String value(FuzzType type) {
    return switch (type) {
      case INT4 -> pick(List.of("0", "1", "-1", "2147483647", "-2147483648"), () -> Integer.toString(random.nextInt()));
      case INT8 -> pick(List.of("0", "9223372036854775807", "-9223372036854775808", "9007199254740993"),
          () -> Long.toString(random.nextLong()));
      case NUMERIC -> quote(numeric()) + "::numeric";
      case FLOAT4 -> quote(float4()) + "::float4";
      case FLOAT8 -> quote(float8()) + "::float8";
      case BOOL -> random.nextBoolean() ? "true" : "false";
      case TEXT -> quote(text(Integer.MAX_VALUE));
      case VARCHAR -> quote(text(40)) + "::varchar(40)";
      case BYTEA -> quote(bytea()) + "::bytea";
      case DATE -> quote(infinite() ? pickOf("infinity", "-infinity") : date()) + "::date";
      case TIMESTAMP -> quote(infinite() ? pickOf("infinity", "-infinity") : dateTime()) + "::timestamp";
      case TIMESTAMPTZ -> quote(infinite() ? pickOf("infinity", "-infinity") : timestampTz()) + "::timestamptz";
      case TIME -> quote(on(FuzzFeature.TEMPORAL_EXTREMES) && random.nextInt(5) == 0 ? "24:00:00" : time()) + "::time";
      case TIMETZ -> quote(time() + pickOf("+00", "+05:30", "-08", "+14", "-15:59")) + "::timetz";
      case POINT -> quote("(" + float8().replace("Infinity", "1e300").replace("NaN", "0") + ","
          + random.nextInt(1000) + ".5)") + "::point";
      case INT4RANGE -> quote(pick(List.of("empty", "(,)", "[,5)"), () -> {
        int lo = random.nextInt(1000) - 500;
        return "[" + lo + "," + (lo + 1 + random.nextInt(100)) + ")";
      })) + "::int4range";
      case VARBIT -> "B" + quote(bits()) + "::varbit";
      case INET -> quote(pick(List.of("::1", "0.0.0.0/0", "2001:db8::1/64", "255.255.255.255"),
          () -> random.nextInt(256) + "." + random.nextInt(256) + ".0." + random.nextInt(256) + "/"
              + (16 + random.nextInt(17)))) + "::inet";
      case MONEY -> quote(pick(List.of("0", "-92233720368547758.08", "92233720368547758.07", "0.01"),
          () -> (random.nextInt(2_000_000) - 1_000_000) + "." + String.format("%02d", random.nextInt(100)))) + "::money";
      case INTERVAL -> quote(interval()) + "::interval";
      case UUID -> quote(new java.util.UUID(random.nextLong(), random.nextLong()).toString()) + "::uuid";
      case JSON -> quote(json()) + "::json";
      case JSONB -> quote(json()) + "::jsonb";
      case INT4_ARRAY -> intArray("int4", 2147483647L);
      case INT8_ARRAY -> intArray("int8", Long.MAX_VALUE);
      case TEXT_ARRAY -> textArray();
      case NUMERIC_ARRAY -> elementArray("numeric", () -> numeric().replace("1" + "0".repeat(1000), "1e30"));
      case DATE_ARRAY -> elementArray("date", () -> infinite() ? pickOf("infinity", "-infinity") : date());
      case TIMESTAMPTZ_ARRAY -> elementArray("timestamptz", () -> infinite() ? "infinity" : timestampTz());
    };
  }

  /**
   * A text value over 8 kB that does not compress below the TOAST threshold, so it is stored out
   * of line; built by Postgres from {@code tag}, so the SQL stays short.
   */
  String toasted() {
    return "(SELECT string_agg(md5(" + quote("t" + random.nextInt(1_000_000)) + " || g), '') FROM generate_series(1, "
        + (280 + random.nextInt(100)) + ") g)";
  }

  /**
   * A text value of 1 to 3.2 MB, over Kafka's default record size, built by Postgres from a tag
   * (md5 digits do not compress much, so it is large on every path).
   */
  String large() {
    return "(SELECT string_agg(md5(" + quote("L" + random.nextInt(1_000_000)) + " || g), '') FROM generate_series(1, "
        + (32_000 + random.nextInt(68_000)) + ") g)";
  }

  private String pick(List<String> edges, java.util.function.Supplier<String> ordinary) {
    return random.nextInt(3) == 0 ? edges.get(random.nextInt(edges.size())) : ordinary.get();
  }

  private String pickOf(String... options) {
    return options[random.nextInt(options.length)];
  }

  private String numeric() {
    if (on(FuzzFeature.NUMERIC_EXTREMES) && random.nextInt(3) == 0) {
      return pickOf("NaN", "Infinity", "-Infinity", "1e-300", "-9.999999999999999999999999999999e200",
          "123456789012345678901234567890.123456789", "0.000000000000000000000000000000000001", "-0.00",
          "1" + "0".repeat(1000));
    }
    int scale = random.nextInt(6);
    String s = new java.math.BigDecimal(java.math.BigInteger.valueOf(random.nextLong() % 100_000_000_000L), scale)
        .toPlainString();
    return random.nextBoolean() ? s : s + "0";
  }

  private String float8() {
    int r = random.nextInt(12);
    if (r == 0 && on(FuzzFeature.FLOAT_SPECIALS)) {
      return pickOf("NaN", "Infinity", "-Infinity");
    }
    if (r == 1 && on(FuzzFeature.NEGATIVE_ZERO)) {
      return "-0";
    }
    if (r == 2) {
      return pickOf("1.7976931348623157e308", "4.9e-324", "2.2250738585072014e-308", "0.1", "-1e-10", "0");
    }
    return Double.toString((random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(40) - 20));
  }

  private String float4() {
    int r = random.nextInt(12);
    if (r == 0 && on(FuzzFeature.FLOAT_SPECIALS)) {
      return pickOf("NaN", "Infinity", "-Infinity");
    }
    if (r == 1 && on(FuzzFeature.NEGATIVE_ZERO)) {
      return "-0";
    }
    if (r == 2) {
      return pickOf("3.4028235e38", "1.4e-45", "1.1754944e-38", "0.1", "0");
    }
    return Float.toString((float) ((random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(20) - 10)));
  }

  private String text(int maxLength) {
    String s;
    if (random.nextInt(3) == 0) {
      s = TEXTS[random.nextInt(TEXTS.length)];
    } else {
      StringBuilder sb = new StringBuilder();
      int n = random.nextInt(20);
      for (int i = 0; i < n; i++) {
        sb.append((char) ('a' + random.nextInt(26)));
      }
      s = sb.toString();
    }
    return s.length() > maxLength ? s.substring(0, maxLength) : s;
  }

  private String bytea() {
    int n = random.nextInt(6);
    StringBuilder sb = new StringBuilder("\\x");
    for (int i = 0; i < n; i++) {
      sb.append(String.format("%02x", random.nextInt(256)));
    }
    return sb.toString();
  }

  /** Whether a date, timestamp or timestamptz value is infinity or -infinity this time. */
  private boolean infinite() {
    return on(FuzzFeature.TEMPORAL_EXTREMES) && random.nextInt(12) == 0;
  }

  private String dateTime() {
    String date = date();
    // a BC date takes its era after the time, as Postgres prints it
    return date.endsWith(" BC") ? date.replace(" BC", "") + " " + time() + " BC" : date + " " + time();
  }

  private String timestampTz() {
    String date = date();
    // Postgres' last timestamp is in year 294276 UTC: a negative offset would pass it.
    String zone = date.startsWith("294276") ? pickOf("+00", "+05:30") : pickOf("+00", "+05:30", "-08", "+14");
    // a BC date takes its era after the time and zone, as Postgres prints it
    return date.endsWith(" BC") ? date.replace(" BC", "") + " " + time() + zone + " BC" : date + " " + time() + zone;
  }

  private String bits() {
    int n = random.nextInt(12);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(random.nextBoolean() ? '1' : '0');
    }
    return sb.toString();
  }

  private String date() {
    if (on(FuzzFeature.YEAR_BEYOND_9999) && random.nextInt(15) == 0) {
      return pickOf("294276-12-31", "10000-01-01", "123456-07-08");
    }
    if (on(FuzzFeature.TEMPORAL_EXTREMES) && random.nextInt(6) == 0) {
      return pickOf("0001-01-01", "9999-12-31", "1969-12-31", "1900-02-28", "2000-02-29", "1582-10-10",
          "0044-03-15 BC", "4713-01-01 BC", "0001-12-31 BC");
    }
    return String.format(Locale.ROOT, "%04d-%02d-%02d", 1950 + random.nextInt(120), 1 + random.nextInt(12),
        1 + random.nextInt(28));
  }

  private String time() {
    if (on(FuzzFeature.TEMPORAL_EXTREMES) && random.nextInt(6) == 0) {
      return pickOf("00:00:00", "23:59:59.999999", "12:00:00.5", "00:00:00.000001");
    }
    String t = String.format(Locale.ROOT, "%02d:%02d:%02d", random.nextInt(24), random.nextInt(60), random.nextInt(60));
    return random.nextBoolean() ? t : t + "." + String.format("%06d", random.nextInt(1_000_000));
  }

  private String interval() {
    if (on(FuzzFeature.TEMPORAL_EXTREMES) && random.nextInt(4) == 0) {
      return pickOf("-1 days", "1 mon -1 days", "-3 hours -0.5 seconds", "0", "-1 year -2 mons +3 days",
          "100 years", "0.000001 seconds");
    }
    return random.nextInt(30) + " days " + random.nextInt(24) + ":" + String.format("%02d", random.nextInt(60))
        + ":" + String.format("%02d", random.nextInt(60)) + (random.nextBoolean() ? ".5" : "");
  }

  private String json() {
    if (on(FuzzFeature.JSON) && random.nextInt(2) == 0) {
      return JSONS[random.nextInt(JSONS.length)];
    }
    return "{\"k\": " + random.nextInt(1000) + ", \"s\": \"v" + random.nextInt(100) + "\"}";
  }

  private String intArray(String element, long max) {
    int n = random.nextInt(5);
    List<String> items = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int r = random.nextInt(6);
      items.add(r == 0 ? "NULL" : r == 1 ? Long.toString(max) : Integer.toString(random.nextInt(2000) - 1000));
    }
    return quote("{" + String.join(",", items) + "}") + "::" + element + "[]";
  }

  /**
   * An array of {@code element} values as Postgres array text: one dimension, or (one time in
   * four) two of equal length, with NULL elements.
   */
  private String elementArray(String element, java.util.function.Supplier<String> value) {
    int rows = random.nextInt(4) == 0 ? 1 + random.nextInt(3) : 0;
    int n = random.nextInt(4);
    java.util.function.Supplier<String> list = () -> {
      List<String> items = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        items.add(random.nextInt(6) == 0 ? "NULL" : "\"" + value.get() + "\"");
      }
      return "{" + String.join(",", items) + "}";
    };
    if (rows == 0 || n == 0) {
      return quote(list.get()) + "::" + element + "[]";
    }
    List<String> outer = new ArrayList<>();
    for (int r = 0; r < rows; r++) {
      outer.add(list.get());
    }
    return quote("{" + String.join(",", outer) + "}") + "::" + element + "[]";
  }

  private String textArray() {
    int n = random.nextInt(5);
    List<String> items = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      items.add(random.nextInt(6) == 0 ? "NULL" : quote(text(30)));
    }
    return "ARRAY[" + String.join(", ", items) + "]::text[]";
  }

  /**
   * A volatile default expression for {@code type} (evaluated per row, so existing rows get values
   * the WAL never carries), or null when the generator has none for the type.
   */
  static String volatileDefault(FuzzType type, Random random) {
    return switch (type) {
      case TIMESTAMPTZ -> random.nextBoolean() ? "clock_timestamp()" : "now()";
      case FLOAT8 -> "random()";
      case INT4 -> "(random() * 1000000)::int4";
      case TEXT -> "md5(random()::text)";
      case UUID -> "gen_random_uuid()";
      default -> null;
    };
  }

  /** Whether {@code type} has a {@link #volatileDefault}. */
  static boolean hasVolatileDefault(FuzzType type) {
    return volatileDefault(type, new Random(0)) != null;
  }
}
