package io.pg2lite.protocol.schema;

import java.util.List;

/**
 * The columns that identify a row in insert/update/delete: the primary key, the REPLICA IDENTITY
 * index, or every column when the identity is FULL (then the replica takes the key from its own
 * primary key or unique index instead). {@code type} is null when the producer did not say.
 */
public record RowKey(List<String> columns, ReplicaIdentity type) {
  public RowKey {
    columns = List.copyOf(columns);
  }

  public static RowKey of(String... columns) {
    return new RowKey(List.of(columns), null);
  }
}
