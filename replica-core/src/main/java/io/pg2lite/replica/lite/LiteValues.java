package io.pg2lite.replica.lite;

import io.pg2lite.protocol.stored.ReplicaStorage;
import io.pg2lite.protocol.stored.StoredForm;
import io.pg2lite.protocol.stored.StoredValue;
import io.pg2lite.protocol.value.Value;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Binds change-log values as SQLite values: exactly their {@link StoredForm}, the protocol's rule
 * that a verification also computes its digests with (so what the sink writes and what a check
 * expects cannot drift apart).
 */
public final class LiteValues {
  private LiteValues() {}

  public static void bind(PreparedStatement ps, int index, Value v, ReplicaStorage storage) throws SQLException {
    StoredValue s = StoredForm.of(v, storage);
    if (s instanceof StoredValue.Null) {
      ps.setNull(index, java.sql.Types.NULL);
    } else if (s instanceof StoredValue.Integer i) {
      ps.setLong(index, i.value());
    } else if (s instanceof StoredValue.Real r) {
      ps.setDouble(index, r.value());
    } else if (s instanceof StoredValue.Text t) {
      ps.setString(index, t.value());
    } else if (s instanceof StoredValue.Blob b) {
      ps.setBytes(index, b.value());
    } else {
      throw new IllegalStateException("unhandled stored value " + s);
    }
  }
}
