package io.pg2lite.sink.replica;

import io.pg2lite.protocol.message.Change;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.watermark.Watermark;
import java.nio.file.Path;
import java.sql.SQLException;

/**
 * A replica: the file, its schema and its row writer, behind the operations the applier needs.
 * The only entry point of the sink into {@code java.sql}.
 */
public final class Replica implements AutoCloseable {
  private final ReplicaFile file;
  private final ReplicaSchema schema;
  private final RowWriter rows;

  private Replica(ReplicaFile file) throws SQLException {
    this.file = file;
    this.schema = new ReplicaSchema(file.connection());
    this.rows = new RowWriter(file.connection(), schema);
  }

  public static Replica open(Path path, String journalMode, String synchronous, int busyTimeoutMs) throws SQLException {
    ReplicaFile f = ReplicaFile.open(path, journalMode, synchronous, busyTimeoutMs);
    try {
      return new Replica(f);
    } catch (SQLException | RuntimeException e) {
      f.close();
      throw e;
    }
  }

  public ReplicaFile file() {
    return file;
  }

  public ReplicaSchema schema() {
    return schema;
  }

  /** Applies one change of an upstream transaction at watermark {@code version}. */
  public void apply(Change change, Watermark version) throws SQLException {
    if (change instanceof DataChange d) {
      rows.apply(d, version);
    } else if (change instanceof SchemaChange s) {
      rows.schemaChanged();
      schema.apply(s);
    } else {
      throw new IllegalStateException("unhandled change " + change.tag());
    }
  }

  /** Called at an upstream commit, before the state row is written: records row operations at {@code commit}. */
  public void committing(Watermark commit) throws SQLException {
    rows.commitChanges(commit);
  }

  /** Called when an upstream transaction is rolled back or aborted. */
  public void discarded() {
    rows.discardChanges();
  }

  /** After a rollback the cached schema may describe undone DDL: reload it and drop prepared statements. */
  public void reloadSchema() throws SQLException {
    rows.schemaChanged();
    schema.reload();
  }

  @Override
  public void close() throws SQLException {
    rows.schemaChanged();
    file.close();
  }
}
