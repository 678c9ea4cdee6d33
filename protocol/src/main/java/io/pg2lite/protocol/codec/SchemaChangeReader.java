package io.pg2lite.protocol.codec;

import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.watermark.Watermark;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads the fields of one schema-change message, after its tag. */
final class SchemaChangeReader {
  /** The fields each tag may carry; anything else is an error naming the field. */
  private static final Map<String, Set<String>> FIELDS = Map.of(
      "create-table", Set.of("spec", "metadata", "backfill"),
      "rename-table", Set.of("old", "new"),
      "update-table-metadata", Set.of("table", "old", "new"),
      "add-column", Set.of("table", "column", "tableMetadata", "backfill"),
      "update-column", Set.of("table", "old", "new"),
      "drop-column", Set.of("table", "column"),
      "drop-table", Set.of("id"),
      "create-index", Set.of("spec"),
      "drop-index", Set.of("id"),
      "backfill-completed", Set.of("relation", "columns", "watermark", "status"));

  private final JsonCursor in;
  private final StructureReader struct;

  // Fields read so far; which ones a tag needs is decided in build().
  private TableSpec tableSpec;
  private IndexSpec indexSpec;
  private TableMetadata metadata;
  private TableMetadata oldMetadata;
  private TableMetadata newMetadata;
  private Map<String, BackfillId> tableBackfill;
  private BackfillId columnBackfill;
  private QualifiedName table;
  private QualifiedName id;
  private QualifiedName oldName;
  private QualifiedName newName;
  private Column column;
  private String columnName;
  private Column oldColumn;
  private Column newColumn;
  private Relation relation;
  private List<String> columns;
  private Watermark watermark;
  private BackfillStatus status;

  SchemaChangeReader(JsonCursor in, StructureReader struct) {
    this.in = in;
    this.struct = struct;
  }

  SchemaChange read(String tag) throws IOException {
    Set<String> allowed = FIELDS.get(tag);
    for (String f; (f = in.nextField()) != null; ) {
      if (!allowed.contains(f)) {
        throw in.error("field \"" + f + "\" does not belong to a \"" + tag + "\" message");
      }
      readField(tag, f);
    }
    return build(tag);
  }

  private void readField(String tag, String f) throws IOException {
    switch (f) {
      case "spec" -> {
        if (tag.equals("create-table")) {
          tableSpec = struct.tableSpec();
        } else {
          indexSpec = struct.indexSpec();
        }
      }
      case "metadata" -> metadata = struct.nullableMetadata();
      case "tableMetadata" -> metadata = struct.nullableMetadata();
      case "backfill" -> {
        if (tag.equals("create-table")) {
          tableBackfill = tableBackfill();
        } else {
          columnBackfill = in.nextIsNull() ? null : backfillIdAtStart();
        }
      }
      case "table" -> table = struct.name();
      case "id" -> id = struct.name();
      case "old" -> {
        switch (tag) {
          case "rename-table" -> oldName = struct.name();
          case "update-table-metadata" -> oldMetadata = struct.nullableMetadata();
          default -> oldColumn = struct.column();
        }
      }
      case "new" -> {
        switch (tag) {
          case "rename-table" -> newName = struct.name();
          case "update-table-metadata" -> newMetadata = struct.nullableMetadata();
          default -> newColumn = struct.column();
        }
      }
      case "column" -> {
        if (tag.equals("drop-column")) {
          columnName = in.string();
        } else {
          column = struct.column();
        }
      }
      case "relation" -> relation = struct.relation();
      case "columns" -> columns = in.stringList();
      case "watermark" -> watermark = in.watermark();
      case "status" -> status = struct.nullableStatus();
      default -> throw in.unknownField(f);
    }
  }

  private SchemaChange build(String tag) {
    return switch (tag) {
      case "create-table" -> new SchemaChange.CreateTable(req(tableSpec, "spec"), metadata, tableBackfill);
      case "rename-table" -> new SchemaChange.RenameTable(req(oldName, "old"), req(newName, "new"));
      case "update-table-metadata" -> new SchemaChange.UpdateTableMetadata(req(table, "table"),
          req(oldMetadata, "old"), req(newMetadata, "new"));
      case "add-column" -> new SchemaChange.AddColumn(req(table, "table"), req(column, "column"), metadata,
          columnBackfill);
      case "update-column" -> new SchemaChange.UpdateColumn(req(table, "table"), req(oldColumn, "old"),
          req(newColumn, "new"));
      case "drop-column" -> new SchemaChange.DropColumn(req(table, "table"), req(columnName, "column"));
      case "drop-table" -> new SchemaChange.DropTable(req(id, "id"));
      case "create-index" -> new SchemaChange.CreateIndex(req(indexSpec, "spec"));
      case "drop-index" -> new SchemaChange.DropIndex(req(id, "id"));
      case "backfill-completed" -> new SchemaChange.BackfillCompleted(req(relation, "relation"),
          req(columns, "columns"), req(watermark, "watermark"), status);
      default -> throw new IllegalStateException("not a schema-change tag: " + tag);
    };
  }

  private <T> T req(T value, String field) {
    return struct.required(value, field);
  }

  private Map<String, BackfillId> tableBackfill() throws IOException {
    if (in.nextIsNull()) {
      return null;
    }
    if (!in.isAtObjectStart()) {
      throw in.mistyped("an object");
    }
    Map<String, BackfillId> out = new LinkedHashMap<>();
    for (String col; (col = in.nextField()) != null; ) {
      out.put(col, struct.backfillId());
    }
    return out;
  }

  private BackfillId backfillIdAtStart() throws IOException {
    if (!in.isAtObjectStart()) {
      throw in.mistyped("an object");
    }
    return struct.backfillIdFields();
  }
}
