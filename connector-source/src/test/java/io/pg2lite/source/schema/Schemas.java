package io.pg2lite.source.schema;

import java.util.ArrayList;
import java.util.List;

/** Small published schemas for unit tests. */
public final class Schemas {
  private Schemas() {}

  public static PublishedSchema.Column col(String name, int pos, String type, boolean notNull) {
    return new PublishedSchema.Column(name, pos, type, "b", null, null, notNull, null);
  }

  public static PublishedSchema.Index pk(String name, String... cols) {
    return new PublishedSchema.Index(name, "public", true, true, false, true, true, idxCols(cols));
  }

  public static PublishedSchema.Index index(String name, boolean unique, String... cols) {
    return new PublishedSchema.Index(name, "public", unique, false, false, true, true, idxCols(cols));
  }

  private static List<PublishedSchema.IndexColumn> idxCols(String... cols) {
    List<PublishedSchema.IndexColumn> out = new ArrayList<>();
    for (String c : cols) {
      out.add(new PublishedSchema.IndexColumn(c.replace(" DESC", ""), c.endsWith(" DESC")));
    }
    return out;
  }

  public static PublishedSchema.Table table(long oid, String name, List<PublishedSchema.Column> cols,
      PublishedSchema.Index... indexes) {
    return new PublishedSchema.Table(oid, 2200, "public", name, "d", cols, List.of(indexes));
  }

  public static PublishedSchema schema(PublishedSchema.Table... tables) {
    return new PublishedSchema("pub", List.of(tables));
  }
}
