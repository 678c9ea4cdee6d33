package io.pg2lite.protocol.message;

import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.List;
import java.util.Objects;

/** Changes to rows. Applied in stream order; never regrouped by table. */
public sealed interface DataChange extends Change {

  /** A new row, applied as an upsert. {@code row} holds every column. */
  record Insert(Relation relation, Row row) implements DataChange {
    public Insert {
      Objects.requireNonNull(relation, "relation");
      Objects.requireNonNull(row, "new");
    }

    @Override
    public String tag() {
      return "insert";
    }
  }

  /**
   * A changed row. {@code row} is the new row minus unchanged TOASTed columns (absent, not null:
   * the replica keeps their old values). {@code key} is the old key when the key changed, the
   * whole old row under REPLICA IDENTITY FULL, otherwise null.
   */
  record Update(Relation relation, Row key, Row row) implements DataChange {
    public Update {
      Objects.requireNonNull(relation, "relation");
      Objects.requireNonNull(row, "new");
    }

    @Override
    public String tag() {
      return "update";
    }
  }

  /** A deleted row, identified by its key columns (the whole old row under FULL). */
  record Delete(Relation relation, Row key) implements DataChange {
    public Delete {
      Objects.requireNonNull(relation, "relation");
      Objects.requireNonNull(key, "key");
    }

    @Override
    public String tag() {
      return "delete";
    }
  }

  /** Empties every listed table (one TRUNCATE statement may name several). */
  record Truncate(List<Relation> relations) implements DataChange {
    public Truncate {
      relations = List.copyOf(relations);
    }

    @Override
    public String tag() {
      return "truncate";
    }
  }

  /**
   * A batch of rows copied from a snapshot taken at {@code watermark}. Each row is the row-key
   * values (in {@code relation.rowKey.columns} order) followed by {@code columns}' values.
   * The replica writes a value only where no change newer than {@code watermark} wrote it, and
   * never re-creates a row deleted after it.
   */
  record Backfill(Relation relation, List<String> columns, Watermark watermark, List<List<Value>> rowValues,
      BackfillStatus status) implements DataChange {
    public Backfill {
      Objects.requireNonNull(relation, "relation");
      Objects.requireNonNull(watermark, "watermark");
      columns = List.copyOf(columns);
      rowValues = rowValues.stream().map(List::copyOf).toList();
    }

    @Override
    public String tag() {
      return "backfill";
    }
  }
}
