package io.pg2lite.replica.apply;

import static io.pg2lite.replica.apply.Tables.ITEM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A value over SQLite's length limit (lowered here to 100,000 bytes, so no test needs a 1 GB
 * value) stops the apply with a message naming table, column, key and size, and the transaction
 * holding it leaves nothing behind while the ones before it stay.
 */
class ValueLengthLimitTest {
  @TempDir
  Path dir;

  @Test
  void aValueOverTheLimitFailsNamingTableColumnKeyAndSizeAndTheReplicaKeepsItsLastCommit() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.replica.limitValueLength(100_000);
      h.feed(ChangeMessages.after("0/100").begin(1).change(Tables.createItem())
          .insert(ITEM, Row.of("id", Value.of(1), "name", Value.of("é".repeat(49_000)))).commit("0/200").entries());
      ApplyException e = assertThrows(ApplyException.class, () -> h.feed(ChangeMessages.after("0/200").begin(2)
          .insert(ITEM, Row.of("id", Value.of(2), "name", Value.of("ok")))
          .insert(ITEM, Row.of("id", Value.of(3), "name", Value.of("é".repeat(50_001)))).commit("0/300").entries()));
      String m = e.getMessage();
      assertTrue(m.contains("column name of table item") && m.contains("{id=3}") && m.contains("100002 bytes")
          && m.contains("at most 100000 bytes"), m);
      assertEquals(List.of(List.of(1, 98_000)), h.query("SELECT id, length(CAST(name AS BLOB)) FROM item"),
          "a 98,000-byte value fits; the failed transaction left nothing");

      ApplyException row = assertThrows(ApplyException.class, () -> h.feed(ChangeMessages.after("0/200").begin(2)
          .insert(ITEM, Row.of("id", Value.of(4), "name", Value.of("x".repeat(60_000)), "price",
              Value.of("1".repeat(60_000)))).commit("0/300").entries()));
      assertTrue(row.getMessage().contains("row of table item with key {id=4} holds 120000 bytes"), row.getMessage());

      ApplyException blob = assertThrows(ApplyException.class, () -> h.feed(ChangeMessages.after("0/200").begin(2)
          .update(ITEM, null, Row.of("id", Value.of(1), "data", Value.of("\\x" + "ab".repeat(100_001))))
          .commit("0/300").entries()));
      assertTrue(blob.getMessage().contains("column data") && blob.getMessage().contains("100001 bytes"),
          blob.getMessage());
    }
  }
}
