package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.kafka.TopicReader;
import io.pg2lite.testkit.support.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 10, defect 4, end to end: a key-changing UPDATE that the change log carries after a
 * backfill copy of a snapshot taken after it. The source is paused while the table joins the
 * publication (or gets a column with a volatile default), the main stream is given a long way to
 * catch up (one large transaction, then 20,000 one-row transactions on another table), and the
 * UPDATE commits last. On resume the copy's snapshot is newer than the UPDATE, and the copy's
 * first record enters the log while the main stream is still catching up (a busy main stream
 * gives the backfill one record per second), so the log holds the copied row at the new key
 * before the move. Each test checks that the log has this order, then that the replica equals
 * Postgres.
 */
@ExtendWith(TestStackExtension.class)
class KeyChangeBackfillIT {
  private static final Duration LONG = Duration.ofMinutes(5);

  /**
   * Pauses the source and waits until its task no longer polls. Connect's task thread reports
   * PAUSED itself, after it sent the records of its last poll, so no poll is under way then.
   */
  private static void pauseSource(Pipeline p) throws InterruptedException {
    String source = p.name + "-source";
    p.worker.rest().pause(source);
    Await.until("source paused", Pipeline.WAIT, () -> {
      var s = p.worker.rest().status(source);
      return s != null && !s.tasks().isEmpty() && s.tasks().stream().allMatch(t -> t.state().equals("PAUSED"));
    });
  }

  /** Gives the main stream a long way to catch up: one large transaction, then 20,000 one-row ones. */
  private static void busyMainStream(Pipeline p, int from) throws Exception {
    p.db.execute("INSERT INTO other SELECT g, 'bulk' FROM generate_series(" + from + ", " + (from + 99_999) + ") g",
        "DO $$ BEGIN FOR i IN " + (from + 100_000) + ".." + (from + 119_999)
            + " LOOP INSERT INTO other VALUES (i, 'one'); COMMIT; END LOOP; END $$");
  }

  /**
   * Asserts the log carries the copy of {@code newKey} of {@code table} before the update moving a
   * row to it: the ordering the defect needs.
   */
  private static void assertCopyBeforeMove(Pipeline p, String table, List<Value> newKey) {
    ChangeLogCodec codec = new ChangeLogCodec();
    int copied = -1;
    int moved = -1;
    try (TopicReader r = new TopicReader(p.stack.kafka().bootstrapServers(), p.topic)) {
      List<ConsumerRecord<byte[], byte[]>> records = r.readToEnd(Duration.ofMinutes(2));
      for (int i = 0; i < records.size(); i++) {
        Message m = codec.decode(records.get(i).value()).message();
        if (copied < 0 && m instanceof DataChange.Backfill b && b.relation().name().equals(table)
            && b.rowValues().stream().anyMatch(v -> v.subList(0, newKey.size()).equals(newKey))) {
          copied = i;
        } else if (moved < 0 && m instanceof DataChange.Update u && u.relation().name().equals(table)
            && u.key() != null) {
          moved = i;
        }
      }
    }
    assertTrue(copied >= 0 && moved >= 0 && copied < moved, "the log must hold the copy of " + newKey + " (record "
        + copied + ") before the key change (record " + moved + ") of " + table + ": ordering not reproduced");
  }

  private static Path start(Pipeline p, String... tables) throws Exception {
    p.db.execute("CREATE TABLE other (id int PRIMARY KEY, v text)",
        "CREATE PUBLICATION " + p.name + "_pub FOR TABLE " + String.join(", ", tables));
    p.startSource();
    Path replica = p.files.newFile(p.name);
    p.startSink("a", replica);
    for (String t : tables) {
      p.awaitBackfilled(replica, t, Pipeline.WAIT);
    }
    return replica;
  }

  @Test
  void keyChangeOfATableJoiningThePublication(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "kc_table")) {
      Path replica = start(p, "other");
      pauseSource(p);
      p.db.execute("CREATE TABLE bk (id int PRIMARY KEY, v text)", "INSERT INTO bk VALUES (1, 'pre')",
          "ALTER PUBLICATION kc_table_pub ADD TABLE bk", "INSERT INTO bk VALUES (10, 'live')");
      busyMainStream(p, 1);
      p.db.execute("UPDATE bk SET id = 11 WHERE id = 10");
      p.worker.rest().resume(p.name + "-source");
      p.awaitBackfilled(replica, "bk", LONG);
      p.awaitSame(replica, "SELECT id, v FROM bk ORDER BY id", "SELECT id, v FROM bk ORDER BY id", LONG);
      assertCopyBeforeMove(p, "bk", List.of(Value.of(11)));
      assertEquals(List.of(List.of("1", "pre"), List.of("11", "live")), Pipeline.replica(replica,
          "SELECT id, v FROM bk ORDER BY id"));
      p.awaitSame(replica, "SELECT id, v FROM other ORDER BY id", "SELECT id, v FROM other ORDER BY id", LONG);
    }
  }

  @Test
  void keyChangeOnACompositeKey(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "kc_composite")) {
      Path replica = start(p, "other");
      pauseSource(p);
      p.db.execute("CREATE TABLE bk2 (a int, b int, v text, PRIMARY KEY (a, b))", "INSERT INTO bk2 VALUES (2, 2, 'pre')",
          "ALTER PUBLICATION kc_composite_pub ADD TABLE bk2", "INSERT INTO bk2 VALUES (1, 1, 'live')");
      busyMainStream(p, 1);
      p.db.execute("UPDATE bk2 SET b = 2 WHERE a = 1 AND b = 1");
      p.worker.rest().resume(p.name + "-source");
      p.awaitBackfilled(replica, "bk2", LONG);
      p.awaitSame(replica, "SELECT a, b, v FROM bk2 ORDER BY a, b", "SELECT a, b, v FROM bk2 ORDER BY a, b", LONG);
      assertCopyBeforeMove(p, "bk2", List.of(Value.of(1), Value.of(2)));
      assertEquals(List.of(List.of("1", "2", "live"), List.of("2", "2", "pre")), Pipeline.replica(replica,
          "SELECT a, b, v FROM bk2 ORDER BY a, b"));
    }
  }

  @Test
  void keyChangeAfterAddColumnWithAVolatileDefault(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "kc_addcol")) {
      p.db.execute("CREATE TABLE bk3 (id int PRIMARY KEY, v text)", "INSERT INTO bk3 VALUES (1, 'pre'), (10, 'live')");
      Path replica = start(p, "other", "bk3");
      pauseSource(p);
      p.db.execute("ALTER TABLE bk3 ADD COLUMN ts timestamptz DEFAULT now()");
      busyMainStream(p, 1);
      p.db.execute("UPDATE bk3 SET id = 11 WHERE id = 10");
      p.worker.rest().resume(p.name + "-source");
      p.awaitSame(replica, "SELECT id, v FROM bk3 ORDER BY id", "SELECT id, v FROM bk3 ORDER BY id", LONG);
      p.awaitBackfilled(replica, "bk3", LONG);
      assertCopyBeforeMove(p, "bk3", List.of(Value.of(11)));
      List<List<String>> pg = p.postgres("SELECT id, v, (extract(epoch FROM ts) * 1000000)::bigint FROM bk3 ORDER BY id");
      List<List<String>> lite = Pipeline.replica(replica, "SELECT id, v, ts FROM bk3 ORDER BY id");
      assertEquals(2, lite.size(), "rows 1 and 11: " + lite);
      for (int i = 0; i < pg.size(); i++) {
        assertEquals(pg.get(i).subList(0, 2), lite.get(i).subList(0, 2));
        Instant at = Instant.parse(lite.get(i).get(2));
        assertEquals(Long.parseLong(pg.get(i).get(2)), at.getEpochSecond() * 1_000_000 + at.getNano() / 1000,
            "ts of row " + pg.get(i).get(0));
      }
    }
  }
}
