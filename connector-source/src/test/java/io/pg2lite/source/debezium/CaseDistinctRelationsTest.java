package io.pg2lite.source.debezium;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.debezium.connector.postgresql.connection.PostgresReplicationConnection;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CaseDistinctRelationsTest {
  /** A pgoutput (protocol 1) Relation message of table public.t with these columns. */
  private static ByteBuffer relation(String... columns) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write('R');
    out.writeBytes(new byte[] {0, 0, 0x40, 0});
    for (String s : new String[] {"public", "t"}) {
      out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
      out.write(0);
    }
    out.write('d');
    out.writeBytes(new byte[] {0, (byte) columns.length});
    for (String c : columns) {
      out.write(1);
      out.writeBytes(c.getBytes(StandardCharsets.UTF_8));
      out.write(0);
      out.writeBytes(new byte[] {0, 0, 0, 23, -1, -1, -1, -1});
    }
    return ByteBuffer.wrap(out.toByteArray());
  }

  private static List<String> names(ByteBuffer message) {
    ByteBuffer in = message.duplicate();
    in.get();
    in.getInt();
    skip(in);
    skip(in);
    in.get();
    int n = in.getShort();
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      in.get();
      int start = in.position();
      skip(in);
      byte[] b = new byte[in.position() - start - 1];
      in.duplicate().position(start).get(b);
      out.add(new String(b, StandardCharsets.UTF_8));
      in.getInt();
      in.getInt();
    }
    return out;
  }

  private static void skip(ByteBuffer in) {
    while (in.get() != 0) {
      // to the NUL
    }
  }

  @Test
  void laterColumnsWhoseNamesLowerCaseAlikeAreMarkedAndReadBack() {
    java.util.Map<String, java.util.Map<String, String>> renamed = new java.util.HashMap<>();
    ByteBuffer rewritten = CaseDistinctRelations.caseDistinct(relation("id", "Name", "name", "NAME", "é", "É",
        "name\uFFFF3"), renamed);
    List<String> names = names(rewritten);
    assertEquals(List.of("id", "Name", "name\uFFFF3\uFFFF", "NAME\uFFFF4", "é", "É\uFFFF6", "name\uFFFF3"), names,
        "a name the mark would give that a real column has gets another mark");
    assertEquals(java.util.Map.of("name\uFFFF3\uFFFF", "name", "NAME\uFFFF4", "NAME", "É\uFFFF6", "É"),
        renamed.get("public.t"), "only the renamed columns are mapped back; a real name is never changed");
  }

  @Test
  void aLaterRelationWithoutCollisionsForgetsTheRenames() {
    java.util.Map<String, java.util.Map<String, String>> renamed = new java.util.HashMap<>();
    CaseDistinctRelations.caseDistinct(relation("id", "a", "A"), renamed);
    CaseDistinctRelations.caseDistinct(relation("id", "a"), renamed);
    assertEquals(null, renamed.get("public.t"));
  }

  @Test
  void aRelationWithoutSuchColumnsIsPassedOnAsIs() {
    ByteBuffer plain = relation("id", "a", "b");
    assertSame(plain, CaseDistinctRelations.caseDistinct(plain, new java.util.HashMap<>()));
  }

  @Test
  void debeziumsDecoderFieldIsThere() throws Exception {
    // a Debezium upgrade that moves the field must fail here, in the build
    assertEquals("MessageDecoder",
        PostgresReplicationConnection.class.getDeclaredField("messageDecoder").getType().getSimpleName());
  }
}
