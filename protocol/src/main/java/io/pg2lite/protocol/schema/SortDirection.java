package io.pg2lite.protocol.schema;

/** The direction of one index column; the wire names are "ASC" and "DESC". */
public enum SortDirection {
  ASC,
  DESC
}
