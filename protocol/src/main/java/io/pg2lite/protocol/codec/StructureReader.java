package io.pg2lite.protocol.codec;

import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.ReplicaIdentity;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.SortDirection;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the structures that messages are made of: relations, names, table/column/index specs,
 * table metadata, backfill ids and status. Each method reads one whole JSON object.
 */
final class StructureReader {
  private final JsonCursor in;

  StructureReader(JsonCursor in) {
    this.in = in;
  }

  /** Returns {@code value}, or fails naming {@code field} as missing from the object just read. */
  <T> T required(T value, String field) {
    if (value == null) {
      throw in.missing(field);
    }
    return value;
  }

  Relation relation() throws IOException {
    in.startObject();
    return relationFields();
  }

  /** Reads a relation whose start-object token was already consumed (array elements). */
  Relation relationFields() throws IOException {
    String schema = null;
    String name = null;
    RowKey rowKey = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "schema" -> schema = in.string();
        case "name" -> name = in.string();
        case "rowKey" -> rowKey = rowKey();
        default -> throw in.unknownField(f);
      }
    }
    return new Relation(required(schema, "schema"), required(name, "name"), required(rowKey, "rowKey"));
  }

  private RowKey rowKey() throws IOException {
    in.startObject();
    List<String> columns = null;
    ReplicaIdentity type = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "columns" -> columns = in.stringList();
        case "type" -> {
          String t = in.nullableString();
          type = t == null ? null : ReplicaIdentity.fromWire(t);
          if (t != null && type == null) {
            throw in.error("unknown replica identity \"" + t + "\" (expected default, nothing, full or index)");
          }
        }
        default -> throw in.unknownField(f);
      }
    }
    return new RowKey(required(columns, "columns"), type);
  }

  QualifiedName name() throws IOException {
    in.startObject();
    String schema = null;
    String name = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "schema" -> schema = in.string();
        case "name" -> name = in.string();
        default -> throw in.unknownField(f);
      }
    }
    return new QualifiedName(required(schema, "schema"), required(name, "name"));
  }

  TableSpec tableSpec() throws IOException {
    in.startObject();
    String schema = null;
    String name = null;
    Map<String, ColumnSpec> columns = null;
    List<String> primaryKey = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "schema" -> schema = in.string();
        case "name" -> name = in.string();
        case "columns" -> {
          in.startObject();
          columns = new LinkedHashMap<>();
          for (String col; (col = in.nextField()) != null; ) {
            columns.put(col, columnSpec());
          }
        }
        case "primaryKey" -> primaryKey = in.nullableStringList();
        default -> throw in.unknownField(f);
      }
    }
    return new TableSpec(required(schema, "schema"), required(name, "name"), required(columns, "columns"), primaryKey);
  }

  ColumnSpec columnSpec() throws IOException {
    in.startObject();
    Integer pos = null;
    String dataType = null;
    String typeClass = null;
    String elemTypeClass = null;
    Integer maxLength = null;
    Boolean notNull = null;
    String dflt = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "pos" -> pos = in.int32();
        case "dataType" -> dataType = in.string();
        case "pgTypeClass" -> typeClass = in.nullableString();
        case "elemPgTypeClass" -> elemTypeClass = in.nullableString();
        case "characterMaximumLength" -> maxLength = in.nullableInt32();
        case "notNull" -> notNull = in.nullableBool();
        case "dflt" -> dflt = in.nullableString();
        default -> throw in.unknownField(f);
      }
    }
    return new ColumnSpec(required(pos, "pos"), required(dataType, "dataType"), typeClass, elemTypeClass,
        maxLength, notNull, dflt);
  }

  Column column() throws IOException {
    in.startObject();
    String name = null;
    ColumnSpec spec = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "name" -> name = in.string();
        case "spec" -> spec = columnSpec();
        default -> throw in.unknownField(f);
      }
    }
    return new Column(required(name, "name"), required(spec, "spec"));
  }

  IndexSpec indexSpec() throws IOException {
    in.startObject();
    String schema = null;
    String table = null;
    String name = null;
    Boolean unique = null;
    Map<String, SortDirection> columns = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "schema" -> schema = in.string();
        case "tableName" -> table = in.string();
        case "name" -> name = in.string();
        case "unique" -> unique = in.bool();
        case "columns" -> {
          in.startObject();
          columns = new LinkedHashMap<>();
          for (String col; (col = in.nextField()) != null; ) {
            String dir = in.string();
            if (!dir.equals("ASC") && !dir.equals("DESC")) {
              throw in.error("index direction must be \"ASC\" or \"DESC\", not \"" + dir + "\"");
            }
            columns.put(col, SortDirection.valueOf(dir));
          }
        }
        default -> throw in.unknownField(f);
      }
    }
    return new IndexSpec(required(schema, "schema"), required(table, "tableName"), required(name, "name"),
        required(unique, "unique"), required(columns, "columns"));
  }

  /** Table metadata, or null for JSON null. */
  TableMetadata nullableMetadata() throws IOException {
    if (in.nextIsNull()) {
      return null;
    }
    if (!in.isAtObjectStart()) {
      throw in.mistyped("an object");
    }
    Long schemaOid = null;
    Long relationOid = null;
    Map<String, Integer> rowKey = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "schemaOID" -> schemaOid = in.int64();
        case "relationOID" -> relationOid = in.int64();
        case "rowKey" -> {
          in.startObject();
          rowKey = new LinkedHashMap<>();
          for (String col; (col = in.nextField()) != null; ) {
            rowKey.put(col, backfillId().attNum());
          }
        }
        default -> throw in.unknownField(f);
      }
    }
    return new TableMetadata(required(schemaOid, "schemaOID"), required(relationOid, "relationOID"),
        required(rowKey, "rowKey"));
  }

  /** {@code {"attNum": n}}: a backfill id, and the shape of a row-key entry in table metadata. */
  BackfillId backfillId() throws IOException {
    in.startObject();
    return backfillIdFields();
  }

  /** Reads a backfill id whose start-object token was already consumed. */
  BackfillId backfillIdFields() throws IOException {
    Integer attNum = null;
    for (String f; (f = in.nextField()) != null; ) {
      if (f.equals("attNum")) {
        attNum = in.int32();
      } else {
        throw in.unknownField(f);
      }
    }
    return new BackfillId(required(attNum, "attNum"));
  }

  /** Backfill progress, or null for JSON null. */
  BackfillStatus nullableStatus() throws IOException {
    if (in.nextIsNull()) {
      return null;
    }
    if (!in.isAtObjectStart()) {
      throw in.mistyped("an object");
    }
    Long rows = null;
    Long totalRows = null;
    Long totalBytes = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "rows" -> rows = in.int64();
        case "totalRows" -> totalRows = in.int64();
        case "totalBytes" -> totalBytes = in.nullableInt64();
        default -> throw in.unknownField(f);
      }
    }
    return new BackfillStatus(required(rows, "rows"), required(totalRows, "totalRows"), totalBytes);
  }
}
