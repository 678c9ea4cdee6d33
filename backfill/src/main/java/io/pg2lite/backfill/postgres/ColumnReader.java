package io.pg2lite.backfill.postgres;

import io.pg2lite.protocol.value.ArrayLiteral;
import io.pg2lite.protocol.value.TextForm;
import io.pg2lite.protocol.value.Value;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Reads one column of a snapshot row as the protocol value the main stream would carry for it
 * (docs/type-mapping.md): a copied row and a replicated row of the same data must be equal, or
 * replicas would differ by path. Values the live stream reads from Postgres' text are read here
 * from the same text with the same mapping ({@link TextForm}, {@link ArrayLiteral}: every array,
 * dates, times, intervals, types carried as Postgres prints them); numbers and booleans through
 * JDBC's typed getters, which read them exactly. The session runs with {@code TimeZone=UTC},
 * {@code DateStyle=ISO}, {@code IntervalStyle=iso_8601}, {@code bytea_output=hex} and
 * {@code extra_float_digits=3} (see {@link PostgresTableCopy}).
 */
abstract class ColumnReader {
  /** The select-list expression for the (quoted) column. */
  abstract String expression(String quotedColumn);

  /** The value at {@code index} of the current row. */
  abstract Value read(ResultSet rs, int index) throws SQLException;

  /** The reader for a column of Postgres type {@code type} (a domain's base type, arrays' elements). */
  static ColumnReader of(ColumnType type) {
    if (type.isArray()) {
      return new ArrayReader(TextForm.of(type.elementTypeName()));
    }
    switch (type.typeName()) {
      case "money":
        return new TextReader("%s::numeric::text"); // the amount, as Debezium's live form; no locale's symbols
      case "bytea":
        return new TextReader("%s::text"); // hex text, as the live stream carries it (not JDBC's bytes)
      default:
        TextForm form = TextForm.of(type.typeName());
        switch (form) {
          case INT:
          case FLOAT4:
          case FLOAT8:
          case BOOL:
            return new TypedReader(form);
          default:
            return new TextReader("%s", form); // no ::text: char(n) would lose its padding
        }
    }
  }

  /** Numbers and booleans, read by JDBC's typed getters. */
  private static final class TypedReader extends ColumnReader {
    private final TextForm form;

    TypedReader(TextForm form) {
      this.form = form;
    }

    @Override
    String expression(String col) {
      return col;
    }

    @Override
    Value read(ResultSet rs, int i) throws SQLException {
      switch (form) {
        case INT: {
          long v = rs.getLong(i);
          return rs.wasNull() ? Value.NULL : new Value.Int(v);
        }
        case FLOAT4: {
          float v = rs.getFloat(i);
          return rs.wasNull() ? Value.NULL : Value.ofDouble(v);
        }
        case FLOAT8: {
          double v = rs.getDouble(i);
          return rs.wasNull() ? Value.NULL : Value.ofDouble(v);
        }
        default: {
          boolean v = rs.getBoolean(i);
          return rs.wasNull() ? Value.NULL : Value.of(v);
        }
      }
    }
  }

  /** A value selected as text ({@code expression} with the column for {@code %s}), read by its form. */
  private static final class TextReader extends ColumnReader {
    private final String expression;
    private final TextForm form;

    TextReader(String expression) {
      this(expression, TextForm.AS_PRINTED);
    }

    TextReader(String expression, TextForm form) {
      this.expression = expression;
      this.form = form;
    }

    @Override
    String expression(String col) {
      return expression.replace("%s", col);
    }

    @Override
    Value read(ResultSet rs, int i) throws SQLException {
      String s = rs.getString(i);
      return s == null ? Value.NULL : form.read(s);
    }
  }

  /** An array of any number of dimensions, selected as Postgres' array text. */
  private static final class ArrayReader extends ColumnReader {
    private final TextForm element;

    ArrayReader(TextForm element) {
      this.element = element;
    }

    @Override
    String expression(String col) {
      return col + "::text";
    }

    @Override
    Value read(ResultSet rs, int i) throws SQLException {
      String s = rs.getString(i);
      return s == null ? Value.NULL : ArrayLiteral.parse(s, element);
    }
  }
}
