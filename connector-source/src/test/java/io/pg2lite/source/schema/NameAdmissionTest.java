package io.pg2lite.source.schema;

import static io.pg2lite.source.schema.Schemas.col;
import static io.pg2lite.source.schema.Schemas.index;
import static io.pg2lite.source.schema.Schemas.pk;
import static io.pg2lite.source.schema.Schemas.schema;
import static io.pg2lite.source.schema.Schemas.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.schema.QualifiedName;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 33: no two published tables (columns, indexes) become one replica name. */
class NameAdmissionTest {
  private static PublishedSchema.Table in(String schema, long oid, String name, PublishedSchema.Column... cols) {
    return new PublishedSchema.Table(oid, 1, schema, name, "d", List.of(cols), List.of(pk(name + "_pkey", "id")));
  }

  private static List<String> names(PublishedSchema s) {
    return s.tables().stream().map(t -> t.schema() + "|" + t.name()).toList();
  }

  @Test
  void aDottedPublicNameAndASchemaTableAreOneReplicaName() {
    PublishedSchema proposed = schema(in("public", 20, "s1.t", col("id", 1, "int4", true)),
        in("s1", 10, "t", col("id", 1, "int4", true)), in("public", 30, "u", col("id", 1, "int4", true)));
    NameAdmission.Admitted a = NameAdmission.admit(proposed, null);
    assertEquals(List.of("s1|t", "public|u"), names(a.schema()), "the older table (lower OID) wins, others go on");
    String why = a.refusedTables().get(new QualifiedName("public", "s1.t"));
    assertTrue(why.contains("\"s1.t\"") && why.contains("s1.t"), why);
    assertEquals(1, a.refusals().size());
  }

  @Test
  void namesThatDifferInAsciiCaseOnlyCollideButUnicodeCaseDoesNot() {
    PublishedSchema proposed = schema(in("public", 10, "Orders", col("id", 1, "int4", true)),
        in("public", 11, "orders", col("id", 1, "int4", true)), in("public", 12, "É", col("id", 1, "int4", true)),
        in("public", 13, "é", col("id", 1, "int4", true)));
    NameAdmission.Admitted a = NameAdmission.admit(proposed, null);
    assertEquals(List.of("public|Orders", "public|É", "public|é"), names(a.schema()));
    assertTrue(a.refusedTables().containsKey(new QualifiedName("public", "orders")));
  }

  @Test
  void whatWasAdmittedBeforeKeepsItsPlace() {
    PublishedSchema before = schema(in("public", 50, "t", col("id", 1, "int4", true)));
    PublishedSchema proposed = schema(in("public", 50, "t", col("id", 1, "int4", true)),
        in("public", 7, "T", col("id", 1, "int4", true)));
    NameAdmission.Admitted a = NameAdmission.admit(proposed, before);
    assertEquals(List.of("public|t"), names(a.schema()), "the newcomer is refused even with a lower OID");
  }

  @Test
  void namesTheReplicaKeepsForItselfAreRefused() {
    PublishedSchema proposed = schema(in("public", 1, "_pg2lite.state", col("id", 1, "int4", true)),
        in("public", 2, "sqlite_stat1", col("id", 1, "int4", true)),
        in("public", 3, "x.pg2lite_row_key", col("id", 1, "int4", true)),
        in("_PG2LITE", 4, "columns", col("id", 1, "int4", true)), in("public", 5, "ok", col("id", 1, "int4", true)));
    NameAdmission.Admitted a = NameAdmission.admit(proposed, null);
    assertEquals(List.of("public|ok"), names(a.schema()));
    assertEquals(4, a.refusedTables().size());
  }

  @Test
  void aCollidingColumnIsLeftOutAndAKeyColumnTakesItsTable() {
    PublishedSchema.Table t = in("public", 1, "t", col("id", 1, "int4", true), col("Name", 2, "text", false),
        col("name", 3, "text", false), col("_0_VERSION", 4, "text", false));
    PublishedSchema.Table k = new PublishedSchema.Table(2, 1, "public", "k", "d",
        List.of(col("ID", 1, "int4", true), col("id", 2, "int4", true)), List.of(pk("k_pkey", "id")));
    NameAdmission.Admitted a = NameAdmission.admit(schema(t, k), null);
    assertEquals(List.of("public|t"), names(a.schema()));
    assertEquals(List.of("id", "Name"), a.schema().tables().get(0).columns().stream()
        .map(PublishedSchema.Column::name).toList());
    assertEquals(List.of("name", "_0_VERSION"),
        List.copyOf(a.refusedColumns().get(new QualifiedName("public", "t")).keySet()));
    assertTrue(a.refusedTables().get(new QualifiedName("public", "k")).contains("row-key column \"id\""));
  }

  @Test
  void anIndexOnARefusedColumnOrWithATablesNameIsLeftOut() {
    PublishedSchema.Table t = table(1, "t", List.of(col("id", 1, "int4", true), col("a", 2, "int4", false),
        col("A", 3, "int4", false)), pk("t_pkey", "id"), index("on_refused", false, "A"), index("u", false, "a"),
        index("fine", false, "a"));
    PublishedSchema.Table u = table(2, "u", List.of(col("id", 1, "int4", true)), pk("u_pkey", "id"));
    NameAdmission.Admitted a = NameAdmission.admit(schema(t, u), null);
    assertEquals(List.of("t_pkey", "fine"), a.schema().tables().get(0).indexes().stream()
        .map(PublishedSchema.Index::name).toList());
  }

  @Test
  void anIndexThatKeysItsTableIsKeptWhateverItsName() {
    PublishedSchema.Table a = table(1, "Orders", List.of(col("id", 1, "int4", true)), pk("Orders_pkey", "id"));
    PublishedSchema.Table b = table(2, "orders2", List.of(col("id", 1, "int4", true)), pk("orders_pkey", "id"));
    NameAdmission.Admitted adm = NameAdmission.admit(schema(a, b), null);
    assertEquals(List.of("orders_pkey"), adm.schema().tables().get(1).indexes().stream()
        .map(PublishedSchema.Index::name).toList(), "a primary key is the row key, not a SQLite index");
  }
}
