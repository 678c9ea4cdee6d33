package io.pg2lite.protocol.message;

import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Changes to the published schema, diffed by the source from the schema before and after a DDL.
 * Within one DDL they come in this order: drop-index, drop-table, per kept table (rename-table,
 * update-table-metadata, drop-column, update-column, add-column), create-table, create-index.
 */
public sealed interface SchemaChange extends Change {

  /**
   * A new table. {@code backfill} names the columns whose existing values must be copied (every
   * column when the table entered the publication with rows); null when none.
   */
  record CreateTable(TableSpec spec, TableMetadata metadata, Map<String, BackfillId> backfill)
      implements SchemaChange {
    public CreateTable {
      Objects.requireNonNull(spec, "spec");
      backfill = backfill == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(backfill));
    }

    @Override
    public String tag() {
      return "create-table";
    }
  }

  /** A renamed table, including a move to another schema. */
  record RenameTable(QualifiedName old, QualifiedName renamed) implements SchemaChange {
    public RenameTable {
      Objects.requireNonNull(old, "old");
      Objects.requireNonNull(renamed, "new");
    }

    @Override
    public String tag() {
      return "rename-table";
    }
  }

  /** The table's upstream identity changed (OIDs, row key). */
  record UpdateTableMetadata(QualifiedName table, TableMetadata old, TableMetadata updated) implements SchemaChange {
    public UpdateTableMetadata {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(old, "old");
      Objects.requireNonNull(updated, "new");
    }

    @Override
    public String tag() {
      return "update-table-metadata";
    }
  }

  /** A new column; when {@code backfill} is set its existing values come from a backfill. */
  record AddColumn(QualifiedName table, Column column, TableMetadata tableMetadata, BackfillId backfill)
      implements SchemaChange {
    public AddColumn {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(column, "column");
    }

    @Override
    public String tag() {
      return "add-column";
    }
  }

  /** A column's name, type or nullability changed. */
  record UpdateColumn(QualifiedName table, Column old, Column updated) implements SchemaChange {
    public UpdateColumn {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(old, "old");
      Objects.requireNonNull(updated, "new");
    }

    @Override
    public String tag() {
      return "update-column";
    }
  }

  record DropColumn(QualifiedName table, String column) implements SchemaChange {
    public DropColumn {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(column, "column");
    }

    @Override
    public String tag() {
      return "drop-column";
    }
  }

  record DropTable(QualifiedName id) implements SchemaChange {
    public DropTable {
      Objects.requireNonNull(id, "id");
    }

    @Override
    public String tag() {
      return "drop-table";
    }
  }

  record CreateIndex(IndexSpec spec) implements SchemaChange {
    public CreateIndex {
      Objects.requireNonNull(spec, "spec");
    }

    @Override
    public String tag() {
      return "create-index";
    }
  }

  record DropIndex(QualifiedName id) implements SchemaChange {
    public DropIndex {
      Objects.requireNonNull(id, "id");
    }

    @Override
    public String tag() {
      return "drop-index";
    }
  }

  /**
   * The listed columns (and the row-key columns) of a table are fully copied and may be shown.
   * Sent only once the main stream has passed {@code watermark}, in a transaction whose watermark
   * is not below it, so the replica's state version never trails the rows' versions.
   */
  record BackfillCompleted(Relation relation, List<String> columns, Watermark watermark, BackfillStatus status)
      implements SchemaChange {
    public BackfillCompleted {
      Objects.requireNonNull(relation, "relation");
      Objects.requireNonNull(watermark, "watermark");
      columns = List.copyOf(columns);
    }

    @Override
    public String tag() {
      return "backfill-completed";
    }
  }
}
