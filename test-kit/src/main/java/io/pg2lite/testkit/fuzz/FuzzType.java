package io.pg2lite.testkit.fuzz;

import java.util.List;

/**
 * The column types the generator uses, with the retypes it may apply to them. Every retype listed
 * here succeeds for every value the generator can put in the column (the USING expression is a
 * cast Postgres defines for all of them), so a generated workload never fails on data.
 *
 * <p>Besides the types with a form of their own, a few that travel as Postgres prints them
 * (time with 24:00:00, timetz, point, int4range, varbit, inet, money: issue 32), and arrays of
 * more than one dimension and of element types read from their text (numeric with NaN, dates
 * with infinity and BC, timestamptz).
 */
public enum FuzzType {
  INT4("int4"),
  INT8("int8"),
  NUMERIC("numeric"),
  FLOAT4("float4"),
  FLOAT8("float8"),
  BOOL("bool"),
  TEXT("text"),
  VARCHAR("varchar(40)"),
  BYTEA("bytea"),
  DATE("date"),
  TIMESTAMP("timestamp"),
  TIMESTAMPTZ("timestamptz"),
  INTERVAL("interval"),
  UUID("uuid"),
  JSON("json"),
  JSONB("jsonb"),
  TIME("time"),
  TIMETZ("timetz"),
  POINT("point"),
  INT4RANGE("int4range"),
  VARBIT("varbit"),
  INET("inet"),
  MONEY("money"),
  INT4_ARRAY("int4[]"),
  INT8_ARRAY("int8[]"),
  TEXT_ARRAY("text[]"),
  NUMERIC_ARRAY("numeric[]"),
  DATE_ARRAY("date[]"),
  TIMESTAMPTZ_ARRAY("timestamptz[]");

  /** The type as written in DDL. */
  public final String sql;

  FuzzType(String sql) {
    this.sql = sql;
  }

  /** Whether values of this type are arrays. */
  public boolean isArray() {
    return sql.endsWith("[]");
  }

  /** Whether values of this type travel as Postgres prints them (FuzzFeature.POSTGRES_TEXT_TYPES). */
  public boolean isPostgresText() {
    return switch (this) {
      case TIME, TIMETZ, POINT, INT4RANGE, VARBIT, INET, MONEY -> true;
      default -> false;
    };
  }

  /** Whether a btree index can cover the type (point has no btree operator class, json none either). */
  public boolean indexable() {
    return this != JSON && this != POINT;
  }

  /** Whether the type can hold values over 8 kB (TOAST). */
  public boolean toastable() {
    return this == TEXT;
  }

  /** Types this one can be changed to with {@code ALTER COLUMN ... TYPE <target> USING col::<target>}. */
  public List<FuzzType> retypeTargets() {
    switch (this) {
      case INT4:
        return List.of(INT8, NUMERIC, TEXT);
      case INT8:
        return List.of(NUMERIC, TEXT);
      case FLOAT4:
        return List.of(FLOAT8, TEXT);
      case VARCHAR:
      case NUMERIC:
      case FLOAT8:
      case BOOL:
      case UUID:
      case INTERVAL:
      case JSONB:
      case BYTEA:
        return List.of(TEXT);
      case JSON:
        return List.of(JSONB, TEXT);
      case DATE:
        return List.of(TIMESTAMP, TEXT);
      case TIMESTAMP:
        return List.of(TIMESTAMPTZ, TEXT);
      case TIMESTAMPTZ:
        return List.of(TIMESTAMP, TEXT);
      case TIME:
      case TIMETZ:
      case POINT:
      case INT4RANGE:
      case VARBIT:
      case INET:
      case NUMERIC_ARRAY:
      case DATE_ARRAY:
      case TIMESTAMPTZ_ARRAY:
        return List.of(TEXT);
      case MONEY:
        return List.of(NUMERIC, TEXT);
      case INT4_ARRAY:
        return List.of(INT8_ARRAY, TEXT_ARRAY, TEXT);
      case INT8_ARRAY:
        return List.of(TEXT_ARRAY, TEXT);
      default:
        return List.of();
    }
  }
}
