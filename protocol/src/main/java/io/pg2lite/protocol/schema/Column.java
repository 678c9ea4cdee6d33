package io.pg2lite.protocol.schema;

import java.util.Objects;

/** A named column: the unit of add-column and update-column. */
public record Column(String name, ColumnSpec spec) {
  public Column {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(spec, "spec");
  }
}
