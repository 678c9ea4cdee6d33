package io.pg2lite.source.debezium;

import io.debezium.connector.postgresql.PostgresType;
import io.pg2lite.protocol.value.ArrayLiteral;
import io.pg2lite.protocol.value.TextForm;
import io.pg2lite.protocol.value.Value;
import org.apache.kafka.connect.data.Schema;

/**
 * Whether the live stream reads a column's values from the text pgoutput sent for them, with the
 * mapping a backfill copy uses too ({@link TextForm}, {@link ArrayLiteral}), or leaves them to
 * Debezium's converters ({@link #DEBEZIUM}). Decided once per column of a Relation message.
 *
 * <p>Read from the text: every array (Debezium reads an array of two or more dimensions as
 * {@code [null,null]}, and a NaN in a numeric array as a NULL array); dates and times (Debezium
 * turns a date's {@code infinity} into 5877611-06-21, refuses timestamptz {@code infinity} and
 * {@code 24:00:00}, and ends timestamps in 294247); intervals (Postgres 17's infinite interval);
 * types Debezium carries as bytes other than bytea (bit strings lose their length, text types it
 * does not know arrive as the hex of their text) and geometric types (structs). What is left to
 * Debezium is what it reads exactly: numbers, booleans, numeric, text, json, uuid, bytea, enums,
 * ranges, network types, money (as its amount). hstore is read from its text too: Debezium's
 * JSON of it is spelled differently from Postgres' own, which a backfill copy reads.
 */
record TextReading(TextForm form, boolean array) {
  static final TextReading DEBEZIUM = new TextReading(null, false);

  private static final int BYTEA_OID = 17;

  /**
   * The reading of a column of {@code type} (a domain reads as its base type) that Debezium typed
   * {@code schema}; null when Debezium left the column out of its value schema (it has no
   * converter for the type), which is then read as Postgres printed it.
   */
  static TextReading of(PostgresType type, Schema schema) {
    PostgresType base = root(type);
    if (base.isArrayType() && base.getElementType() != null) {
      return new TextReading(TextForm.of(root(base.getElementType()).getName()), true);
    }
    if ("hstore".equals(base.getName())) { // an extension type: no fixed OID
      return new TextReading(TextForm.HSTORE, false);
    }
    switch (base.getOid()) {
      case 1082, 1083, 1114, 1184, 1186, 1266: // date, time, timestamp, timestamptz, interval, timetz
        return new TextReading(TextForm.of(base.getName()), false);
      case 600, 601, 602, 603, 604, 628, 718: // point, lseg, path, box, polygon, line, circle
        return new TextReading(TextForm.AS_PRINTED, false);
      default:
        return schema == null || schema.type() == Schema.Type.BYTES && base.getOid() != BYTEA_OID
            ? new TextReading(TextForm.AS_PRINTED, false) : DEBEZIUM;
    }
  }

  /** The log value of {@code text}, a non-NULL value as Postgres printed it. */
  Value read(String text) {
    return array ? ArrayLiteral.parse(text, form) : form.read(text);
  }

  private static PostgresType root(PostgresType type) {
    PostgresType root = type.getRootType();
    return root == null ? type : root;
  }
}
