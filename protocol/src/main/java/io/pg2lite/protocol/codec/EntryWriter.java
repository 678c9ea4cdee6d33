package io.pg2lite.protocol.codec;

import com.fasterxml.jackson.core.JsonGenerator;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.Change;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.Part;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.SortDirection;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.verify.Buckets;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Writes one {@link ChangeLogEntry} as JSON. Optional fields that are null are left out (the
 * reader treats absent and null alike for them); row columns are written exactly as present,
 * with SQL NULL as JSON null, so absent columns stay absent.
 */
final class EntryWriter {
  private final JsonGenerator gen;

  EntryWriter(JsonGenerator gen) {
    this.gen = gen;
  }

  void write(ChangeLogEntry entry) throws IOException {
    gen.writeStartObject();
    gen.writeNumberField("v", ChangeLogEntry.PROTOCOL_VERSION);
    gen.writeStringField("watermark", entry.watermark().toString());
    gen.writeNumberField("pos", entry.pos());
    gen.writeFieldName("message");
    writeMessage(entry.message());
    gen.writeEndObject();
  }

  private void writeMessage(Message message) throws IOException {
    gen.writeStartObject();
    gen.writeStringField("tag", message.tag());
    if (message instanceof Begin b) {
      writeBegin(b);
    } else if (message instanceof Commit c) {
      writeCommit(c);
    } else if (message instanceof Rollback r) {
      optionalString("reason", r.reason());
    } else if (message instanceof Change c) {
      writeChange(c);
    } else if (message instanceof Part p) {
      gen.writeNumberField("index", p.index());
      gen.writeNumberField("count", p.count());
      gen.writeNumberField("size", p.size());
      gen.writeStringField("text", p.text());
    } else {
      throw new IllegalStateException("unhandled " + message.getClass().getName());
    }
    gen.writeEndObject();
  }

  private void writeBegin(Begin b) throws IOException {
    if (b.xid() != null) {
      gen.writeNumberField("xid", b.xid());
    }
    optionalTime("commitTime", b.commitTime());
    if (b.backfill()) {
      gen.writeBooleanField("backfill", true);
    }
    if (b.lineage() != null) {
      gen.writeObjectFieldStart("lineage");
      gen.writeStringField("previous", b.lineage().previous());
      gen.writeStringField("reason", b.lineage().reason());
      gen.writeEndObject();
    }
  }

  private void writeCommit(Commit c) throws IOException {
    gen.writeNumberField("changes", c.changes());
    optionalTime("commitTime", c.commitTime());
  }

  private void writeChange(Change change) throws IOException {
    if (change instanceof DataChange d) {
      writeData(d);
    } else if (change instanceof SchemaChange s) {
      writeSchema(s);
    } else if (change instanceof Verify v) {
      writeVerify(v);
    } else {
      throw new IllegalStateException("unhandled " + change.getClass().getName());
    }
  }

  private void writeData(DataChange change) throws IOException {
    if (change instanceof DataChange.Insert i) {
      relation("relation", i.relation());
      row("new", i.row());
    } else if (change instanceof DataChange.Update u) {
      relation("relation", u.relation());
      if (u.key() == null) {
        gen.writeNullField("key");
      } else {
        row("key", u.key());
      }
      row("new", u.row());
    } else if (change instanceof DataChange.Delete d) {
      relation("relation", d.relation());
      row("key", d.key());
    } else if (change instanceof DataChange.Truncate t) {
      gen.writeArrayFieldStart("relations");
      for (Relation r : t.relations()) {
        relationBody(r);
      }
      gen.writeEndArray();
    } else if (change instanceof DataChange.Backfill b) {
      relation("relation", b.relation());
      stringList("columns", b.columns());
      gen.writeStringField("watermark", b.watermark().toString());
      gen.writeArrayFieldStart("rowValues");
      for (List<Value> row : b.rowValues()) {
        gen.writeStartArray();
        for (Value v : row) {
          value(v);
        }
        gen.writeEndArray();
      }
      gen.writeEndArray();
      status(b.status());
    } else {
      throw new IllegalStateException("unhandled " + change.getClass().getName());
    }
  }

  private void writeVerify(Verify v) throws IOException {
    gen.writeStringField("id", v.id());
    relation("relation", v.relation());
    stringList("columns", v.columns());
    gen.writeStringField("snapshot", v.snapshot().toString());
    gen.writeStringField("since", v.since().toString());
    gen.writeStringField("result", v.result().wire);
    if (v.reason() != null) {
      gen.writeStringField("reason", v.reason());
    }
    if (v.keyRange() != null) {
      gen.writeObjectFieldStart("keyRange");
      gen.writeNumberField("from", v.keyRange().from());
      gen.writeNumberField("to", v.keyRange().to());
      gen.writeEndObject();
    }
    if (v.buckets() != null) {
      gen.writeObjectFieldStart("buckets");
      if (v.buckets() instanceof Buckets.Ranges r) {
        gen.writeStringField("kind", "ranges");
        gen.writeNumberField("min", r.min());
        gen.writeNumberField("max", r.max());
      } else {
        gen.writeStringField("kind", "hashed");
      }
      gen.writeEndObject();
      gen.writeArrayFieldStart("digests");
      for (Verify.Digest d : v.digests()) {
        gen.writeStartArray();
        gen.writeNumber(d.rows());
        gen.writeString(d.sum());
        gen.writeEndArray();
      }
      gen.writeEndArray();
      gen.writeNumberField("excluded", v.excluded());
    }
  }

  private void writeSchema(SchemaChange change) throws IOException {
    if (change instanceof SchemaChange.CreateTable c) {
      tableSpec(c.spec());
      optionalMetadata("metadata", c.metadata());
      if (c.backfill() != null) {
        gen.writeObjectFieldStart("backfill");
        for (Map.Entry<String, BackfillId> e : c.backfill().entrySet()) {
          backfillId(e.getKey(), e.getValue());
        }
        gen.writeEndObject();
      }
    } else if (change instanceof SchemaChange.RenameTable r) {
      name("old", r.old());
      name("new", r.renamed());
    } else if (change instanceof SchemaChange.UpdateTableMetadata u) {
      name("table", u.table());
      optionalMetadata("old", u.old());
      optionalMetadata("new", u.updated());
    } else if (change instanceof SchemaChange.AddColumn a) {
      name("table", a.table());
      column("column", a.column());
      optionalMetadata("tableMetadata", a.tableMetadata());
      if (a.backfill() != null) {
        backfillId("backfill", a.backfill());
      }
    } else if (change instanceof SchemaChange.UpdateColumn u) {
      name("table", u.table());
      column("old", u.old());
      column("new", u.updated());
    } else if (change instanceof SchemaChange.DropColumn d) {
      name("table", d.table());
      gen.writeStringField("column", d.column());
    } else if (change instanceof SchemaChange.DropTable d) {
      name("id", d.id());
    } else if (change instanceof SchemaChange.CreateIndex c) {
      indexSpec(c.spec());
    } else if (change instanceof SchemaChange.DropIndex d) {
      name("id", d.id());
    } else if (change instanceof SchemaChange.BackfillCompleted b) {
      relation("relation", b.relation());
      stringList("columns", b.columns());
      gen.writeStringField("watermark", b.watermark().toString());
      status(b.status());
    } else {
      throw new IllegalStateException("unhandled " + change.getClass().getName());
    }
  }

  private void relation(String field, Relation r) throws IOException {
    gen.writeFieldName(field);
    relationBody(r);
  }

  private void relationBody(Relation r) throws IOException {
    gen.writeStartObject();
    gen.writeStringField("schema", r.schema());
    gen.writeStringField("name", r.name());
    gen.writeObjectFieldStart("rowKey");
    stringList("columns", r.rowKey().columns());
    if (r.rowKey().type() != null) {
      gen.writeStringField("type", r.rowKey().type().wireName());
    }
    gen.writeEndObject();
    gen.writeEndObject();
  }

  private void row(String field, Row row) throws IOException {
    gen.writeObjectFieldStart(field);
    for (Map.Entry<String, Value> e : row.values().entrySet()) {
      gen.writeFieldName(e.getKey());
      value(e.getValue());
    }
    gen.writeEndObject();
  }

  private void value(Value v) throws IOException {
    ValueJson.write(gen, v);
  }

  private void name(String field, QualifiedName n) throws IOException {
    gen.writeObjectFieldStart(field);
    gen.writeStringField("schema", n.schema());
    gen.writeStringField("name", n.name());
    gen.writeEndObject();
  }

  private void tableSpec(TableSpec spec) throws IOException {
    gen.writeObjectFieldStart("spec");
    gen.writeStringField("schema", spec.schema());
    gen.writeStringField("name", spec.name());
    gen.writeObjectFieldStart("columns");
    for (Map.Entry<String, ColumnSpec> e : spec.columns().entrySet()) {
      columnSpec(e.getKey(), e.getValue());
    }
    gen.writeEndObject();
    if (spec.primaryKey() != null) {
      stringList("primaryKey", spec.primaryKey());
    }
    gen.writeEndObject();
  }

  private void column(String field, Column c) throws IOException {
    gen.writeObjectFieldStart(field);
    gen.writeStringField("name", c.name());
    columnSpec("spec", c.spec());
    gen.writeEndObject();
  }

  private void columnSpec(String field, ColumnSpec c) throws IOException {
    gen.writeObjectFieldStart(field);
    gen.writeNumberField("pos", c.pos());
    gen.writeStringField("dataType", c.dataType());
    optionalString("pgTypeClass", c.pgTypeClass());
    optionalString("elemPgTypeClass", c.elemPgTypeClass());
    if (c.characterMaximumLength() != null) {
      gen.writeNumberField("characterMaximumLength", c.characterMaximumLength());
    }
    if (c.notNull() != null) {
      gen.writeBooleanField("notNull", c.notNull());
    }
    optionalString("dflt", c.dflt());
    gen.writeEndObject();
  }

  private void indexSpec(IndexSpec spec) throws IOException {
    gen.writeObjectFieldStart("spec");
    gen.writeStringField("schema", spec.schema());
    gen.writeStringField("tableName", spec.tableName());
    gen.writeStringField("name", spec.name());
    gen.writeBooleanField("unique", spec.unique());
    gen.writeObjectFieldStart("columns");
    for (Map.Entry<String, SortDirection> e : spec.columns().entrySet()) {
      gen.writeStringField(e.getKey(), e.getValue().name());
    }
    gen.writeEndObject();
    gen.writeEndObject();
  }

  private void optionalMetadata(String field, TableMetadata m) throws IOException {
    if (m == null) {
      return;
    }
    gen.writeObjectFieldStart(field);
    gen.writeNumberField("schemaOID", m.schemaOid());
    gen.writeNumberField("relationOID", m.relationOid());
    gen.writeObjectFieldStart("rowKey");
    for (Map.Entry<String, Integer> e : m.rowKey().entrySet()) {
      gen.writeObjectFieldStart(e.getKey());
      gen.writeNumberField("attNum", e.getValue());
      gen.writeEndObject();
    }
    gen.writeEndObject();
    gen.writeEndObject();
  }

  private void backfillId(String field, BackfillId id) throws IOException {
    gen.writeObjectFieldStart(field);
    gen.writeNumberField("attNum", id.attNum());
    gen.writeEndObject();
  }

  private void status(BackfillStatus s) throws IOException {
    if (s == null) {
      return;
    }
    gen.writeObjectFieldStart("status");
    gen.writeNumberField("rows", s.rows());
    gen.writeNumberField("totalRows", s.totalRows());
    if (s.totalBytes() != null) {
      gen.writeNumberField("totalBytes", s.totalBytes());
    }
    gen.writeEndObject();
  }

  private void stringList(String field, List<String> values) throws IOException {
    gen.writeArrayFieldStart(field);
    for (String s : values) {
      gen.writeString(s);
    }
    gen.writeEndArray();
  }

  private void optionalString(String field, String value) throws IOException {
    if (value != null) {
      gen.writeStringField(field, value);
    }
  }

  private void optionalTime(String field, Instant t) throws IOException {
    if (t != null) {
      gen.writeStringField(field, t.toString());
    }
  }
}
