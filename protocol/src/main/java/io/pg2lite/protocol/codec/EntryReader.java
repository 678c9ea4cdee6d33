package io.pg2lite.protocol.codec;

import com.fasterxml.jackson.core.JsonParser;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.NewLineage;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.Part;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads one change-log record. The {@code tag} must be a message's first field: the reader
 * streams, and the tag decides what the other fields mean. The writer always puts it first.
 */
final class EntryReader {
  private final JsonCursor in;
  private final StructureReader struct;

  EntryReader(JsonParser parser) {
    this.in = new JsonCursor(parser);
    this.struct = new StructureReader(in);
  }

  ChangeLogEntry readEntry() throws IOException {
    in.startObject();
    Integer version = null;
    Watermark watermark = null;
    Long pos = null;
    Message message = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "v" -> {
          version = in.int32();
          if (version != ChangeLogEntry.PROTOCOL_VERSION) {
            throw in.error("unsupported protocol version " + version + "; this reader understands version "
                + ChangeLogEntry.PROTOCOL_VERSION + " (upgrade the consumer)");
          }
        }
        case "watermark" -> watermark = in.watermark();
        case "pos" -> {
          pos = in.int64();
          if (pos < 0) {
            throw in.error("pos must not be negative: " + pos);
          }
        }
        case "message" -> message = message();
        default -> throw in.unknownField(f);
      }
    }
    struct.required(version, "v");
    ChangeLogEntry entry = new ChangeLogEntry(struct.required(watermark, "watermark"), struct.required(pos, "pos"),
        struct.required(message, "message"));
    in.expectEnd();
    return entry;
  }

  private Message message() throws IOException {
    in.startObject();
    String first = in.nextField();
    if (!"tag".equals(first)) {
      throw first == null ? in.missing("tag") : in.error("a message must start with its \"tag\" field, found \""
          + first + "\" first");
    }
    String tag = in.string();
    return switch (tag) {
      case "begin" -> begin();
      case "commit" -> commit();
      case "rollback" -> rollback();
      case "part" -> part();
      case "insert", "update", "delete", "truncate", "backfill" -> dataChange(tag);
      case "create-table", "rename-table", "update-table-metadata", "add-column", "update-column", "drop-column",
          "drop-table", "create-index", "drop-index", "backfill-completed" -> new SchemaChangeReader(in, struct).read(tag);
      case "verify" -> new VerifyReader(in, struct).read();
      default -> throw in.error("unknown message tag \"" + tag + "\"");
    };
  }

  private Begin begin() throws IOException {
    Long xid = null;
    Instant commitTime = null;
    boolean backfill = false;
    NewLineage lineage = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "xid" -> xid = in.nullableInt64();
        case "commitTime" -> commitTime = in.nullableInstant();
        case "backfill" -> backfill = in.bool();
        case "lineage" -> lineage = lineage();
        default -> throw in.unknownField(f);
      }
    }
    return new Begin(xid, commitTime, backfill, lineage);
  }

  private NewLineage lineage() throws IOException {
    in.startObject();
    String previous = null;
    String reason = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "previous" -> previous = in.string();
        case "reason" -> reason = in.string();
        default -> throw in.unknownField(f);
      }
    }
    if (previous == null) {
      throw in.missing("previous");
    }
    if (reason == null) {
      throw in.missing("reason");
    }
    return new NewLineage(previous, reason);
  }

  private Commit commit() throws IOException {
    Long changes = null;
    Instant commitTime = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "changes" -> {
          changes = in.int64();
          if (changes < 0) {
            throw in.error("changes must not be negative: " + changes);
          }
        }
        case "commitTime" -> commitTime = in.nullableInstant();
        default -> throw in.unknownField(f);
      }
    }
    return new Commit(struct.required(changes, "changes"), commitTime);
  }

  private Rollback rollback() throws IOException {
    String reason = null;
    for (String f; (f = in.nextField()) != null; ) {
      if (f.equals("reason")) {
        reason = in.nullableString();
      } else {
        throw in.unknownField(f);
      }
    }
    return new Rollback(reason);
  }

  private Part part() throws IOException {
    Integer index = null;
    Integer count = null;
    Long size = null;
    String text = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "index" -> index = in.int32();
        case "count" -> count = in.int32();
        case "size" -> size = in.int64();
        case "text" -> text = in.string();
        default -> throw in.unknownField(f);
      }
    }
    try {
      return new Part(struct.required(index, "index"), struct.required(count, "count"), struct.required(size, "size"),
          struct.required(text, "text"));
    } catch (IllegalArgumentException e) {
      throw in.error(e.getMessage());
    }
  }

  /** Reads a message alone, as the joined text of a split message holds it. */
  Message messageOnly() throws IOException {
    Message m = message();
    in.expectEnd();
    return m;
  }

  private DataChange dataChange(String tag) throws IOException {
    Relation relation = null;
    List<Relation> relations = null;
    Row key = null;
    boolean keySeen = false;
    Row row = null;
    List<String> columns = null;
    Watermark watermark = null;
    List<List<Value>> rowValues = null;
    BackfillStatus status = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "relation" -> relation = struct.relation();
        case "relations" -> relations = relations();
        case "key" -> {
          key = in.nullableRow();
          keySeen = true;
        }
        case "new" -> row = in.row();
        case "columns" -> columns = in.stringList();
        case "watermark" -> watermark = in.watermark();
        case "rowValues" -> rowValues = rowValues();
        case "status" -> status = struct.nullableStatus();
        default -> throw in.unknownField(f);
      }
      checkAllowed(tag, f);
    }
    return switch (tag) {
      case "insert" -> new DataChange.Insert(struct.required(relation, "relation"), struct.required(row, "new"));
      case "update" -> new DataChange.Update(struct.required(relation, "relation"), key, struct.required(row, "new"));
      case "delete" -> {
        if (!keySeen || key == null) {
          throw in.missing("key");
        }
        yield new DataChange.Delete(struct.required(relation, "relation"), key);
      }
      case "truncate" -> new DataChange.Truncate(struct.required(relations, "relations"));
      case "backfill" -> new DataChange.Backfill(struct.required(relation, "relation"),
          struct.required(columns, "columns"), struct.required(watermark, "watermark"),
          struct.required(rowValues, "rowValues"), status);
      default -> throw new IllegalStateException("not a data tag: " + tag);
    };
  }

  /** Which fields each data tag may carry: a field of another tag is as wrong as an unknown one. */
  private static final Map<String, List<String>> DATA_FIELDS = Map.of(
      "insert", List.of("relation", "new"),
      "update", List.of("relation", "key", "new"),
      "delete", List.of("relation", "key"),
      "truncate", List.of("relations"),
      "backfill", List.of("relation", "columns", "watermark", "rowValues", "status"));

  private void checkAllowed(String tag, String field) {
    if (!DATA_FIELDS.get(tag).contains(field)) {
      throw in.error("field \"" + field + "\" does not belong to a \"" + tag + "\" message");
    }
  }

  private List<Relation> relations() throws IOException {
    in.startArray("an array of relations");
    List<Relation> out = new ArrayList<>();
    while (in.nextElement()) {
      if (!in.isAtObjectStart()) {
        throw in.mistyped("an object");
      }
      out.add(struct.relationFields());
    }
    return out;
  }

  private List<List<Value>> rowValues() throws IOException {
    in.startArray("an array of rows");
    List<List<Value>> out = new ArrayList<>();
    while (in.nextElement()) {
      if (!in.isAtArrayStart()) {
        throw in.mistyped("an array of values");
      }
      out.add(in.currentArrayValues());
    }
    return out;
  }
}
