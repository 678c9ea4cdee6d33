package io.pg2lite.protocol.value;

/**
 * How the change log reads a value from the text Postgres' output function printed for it: the
 * one mapping from Postgres text to log values that the live stream (pgoutput sends values as
 * that text) and a backfill copy (which selects values as text) share, so a row holds the same
 * value whichever path brought it (docs/type-mapping.md).
 *
 * <p>The text is what Postgres prints under {@link #PRINTING_SETTINGS}, which both the
 * walsender's session and a backfill copy's set: the output of types this class leaves as printed
 * (a tstzrange, a composite holding an interval) depends on them, so both paths must print alike.
 * Types not named here travel exactly as Postgres printed them: numeric, text types, uuid, json,
 * jsonb, bytea, time, interval, enums, geometric, ranges, multiranges, text search, bit strings,
 * {@code pg_lsn}, composites, extension types.
 */
public enum TextForm {
  INT, FLOAT4, FLOAT8, BOOL, DATE, TIMESTAMP, TIMESTAMPTZ, TIMETZ, INTERVAL, HSTORE, AS_PRINTED;

  /**
   * The session settings ({@code SET} statements' bodies) under which Postgres prints values in
   * the log's text: UTC, ISO dates, ISO 8601 intervals, hex bytea, shortest exact floats, and
   * money in the C locale ({@code $1,234.56}, which Debezium's money reading takes apart; a
   * server's {@code lc_monetary} such as de_DE prints {@code 1.234,56 €}).
   */
  public static final java.util.List<String> PRINTING_SETTINGS = java.util.List.of("TimeZone = 'UTC'",
      "DateStyle = 'ISO, YMD'", "IntervalStyle = 'iso_8601'", "bytea_output = 'hex'", "extra_float_digits = 3",
      "lc_monetary = 'C'");

  /** The form of a value of Postgres type {@code typeName} (a domain's base type, without "[]"). */
  public static TextForm of(String typeName) {
    switch (typeName) {
      case "int2":
      case "int4":
      case "int8":
      case "oid":
        return INT;
      case "float4":
        return FLOAT4;
      case "float8":
        return FLOAT8;
      case "bool":
        return BOOL;
      case "date":
        return DATE;
      case "timestamp":
        return TIMESTAMP;
      case "timestamptz":
        return TIMESTAMPTZ;
      case "timetz":
        return TIMETZ;
      case "interval":
        return INTERVAL;
      case "hstore":
        return HSTORE;
      default:
        return AS_PRINTED;
    }
  }

  /**
   * The log value of {@code text}, a non-NULL value of this form as Postgres printed it.
   *
   * @throws IllegalArgumentException when the text is not what Postgres prints for the type
   */
  public Value read(String text) {
    try {
      switch (this) {
        case INT:
          return new Value.Int(Long.parseLong(text));
        case FLOAT4:
          return Value.ofDouble(Float.parseFloat(text));
        case FLOAT8:
          return Value.ofDouble(Double.parseDouble(text));
        case BOOL:
          return new Value.Bool(bool(text));
        case DATE:
          return new Value.Text(PostgresTimes.date(text));
        case TIMESTAMP:
          return new Value.Text(PostgresTimes.timestamp(text));
        case TIMESTAMPTZ:
          return new Value.Text(PostgresTimes.timestampTz(text));
        case TIMETZ:
          return new Value.Text(PostgresTimes.timeTz(text));
        case INTERVAL:
          return new Value.Text(iso8601Interval(text));
        case HSTORE:
          return new Value.Text(HstoreText.toJson(text));
        default:
          return new Value.Text(text);
      }
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("\"" + text + "\" is not a " + name().toLowerCase() + " as Postgres prints it"
          + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"), e);
    }
  }

  /**
   * An interval as printed under {@code IntervalStyle = iso_8601} (or Postgres 17's infinity),
   * which is the log's form; any other text means the printing session missed
   * {@link #PRINTING_SETTINGS}, and is refused rather than carried in another form.
   */
  private static String iso8601Interval(String text) {
    if (text.startsWith("P") || PostgresTimes.isInfinity(text)) {
      return text;
    }
    throw new IllegalArgumentException("not in IntervalStyle iso_8601: the printing session lacks "
        + "TextForm.PRINTING_SETTINGS");
  }

  private static boolean bool(String text) {
    switch (text.toLowerCase(java.util.Locale.ROOT)) { // constant defaults may spell TRUE
      case "t":
      case "true":
        return true;
      case "f":
      case "false":
        return false;
      default:
        throw new IllegalArgumentException("not t or f");
    }
  }
}
