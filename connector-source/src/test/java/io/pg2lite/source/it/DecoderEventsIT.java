package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.postgres.PostgresConnections;
import io.pg2lite.connect.failure.Healing;
import io.pg2lite.source.debezium.DecoderSession;
import io.pg2lite.source.replication.HealingReplicationStream;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationStream;
import io.pg2lite.source.transaction.SourcePosition;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.postgres.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * The source's reader ({@link HealingReplicationStream} over {@link DecoderSession}) hands out exactly the events in
 * {@value #EXPECTED} for a workload that covers every supported type, updates and deletes under
 * REPLICA IDENTITY DEFAULT and FULL, a primary-key change, unchanged TOASTed values, multi-table
 * TRUNCATE, logical messages in and outside transactions, and columns added, retyped and dropped
 * between rows. The file was written by this workload when Debezium's whole task still read the
 * slot beside the decoder and both handed out these events, value for value (ADR 0015, ADR 0020):
 * what the task's path handed out is what the type ITs check against docs/type-mapping.md, so the
 * file carries their promise over, and a Debezium upgrade that changes a value fails here first.
 * Transaction ids, LSNs and commit times differ from run to run and are written as their order.
 */
@ExtendWith(TestStackExtension.class)
class DecoderEventsIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  /** Every event the workload below makes the decoder hand out, as {@link #describe} writes them. */
  private static final String EXPECTED = "/decoder/expected-events.txt";

  @Test
  void theDecoderHandsOutTheExpectedEvents(TestStack stack) throws Exception {
    try (TestDatabase db = stack.postgres().newDatabase("decoder_eq")) {
      db.execute("CREATE TYPE mood AS ENUM ('sad', 'happy')",
          "CREATE DOMAIN positive AS int4 CHECK (VALUE > 0)",
          "CREATE TABLE t (id int PRIMARY KEY, i2 int2, i4 int4, i8 int8, num numeric, num_nan numeric,"
              + " num_inf numeric, f4 float4, f8 float8, f8_nan float8, f8_inf float8, b bool, tx text,"
              + " vc varchar(10), ch char(3), u uuid, js json, jb jsonb, by bytea, d date, tm time, tz timetz,"
              + " ts timestamp, tstz timestamptz, iv interval, e mood, arr int8[], tarr text[], dom positive,"
              + " n2 numeric(10,2), ts_inf timestamp, big text)",
          "CREATE TABLE full_t (id int PRIMARY KEY, v text, big text, n int)",
          "ALTER TABLE full_t REPLICA IDENTITY FULL",
          "CREATE TABLE other (k text PRIMARY KEY, v int)",
          "CREATE PUBLICATION eq_pub FOR TABLE t, full_t, other");
      db.createLogicalSlot("eq_decoder"); // before the workload: it decodes all of it
      // 6.4 kB of distinct digests: compresses poorly, so it is stored TOASTed; the same every run.
      String big = "(SELECT string_agg(md5(i::text), '') FROM generate_series(1, 200) i)";
      db.execute("SET TIME ZONE 'UTC'; INSERT INTO t VALUES (1, -32768, 2147483647, 9223372036854775807,"
          + " 12345678901234567890.123456789, 'NaN', 'Infinity', 1.5, 0.1, 'NaN', '-Infinity', true, 'héllo \"w\"',"
          + " 'abc', 'ab', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": [1, 2]}', '{\"b\": 2, \"a\": 1}',"
          + " '\\x00ff10', '2025-01-02', '03:04:05.123456', '03:04:05.5+02', '2025-01-02 03:04:05.123456',"
          + " '2025-01-02 03:04:05.123456+00', '1 year 2 mons 3 days 04:05:06.5', 'happy', '{1,9007199254740993}',"
          + " '{\"x\",NULL}', 5, 12.30, 'infinity', " + big + ")");
      db.execute("INSERT INTO t (id) VALUES (2)",
          "INSERT INTO t (id, d, ts, tstz, iv, num) VALUES (3, '0044-03-15 BC', '10000-01-01 00:00:00.5',"
              + " '1900-06-30 23:59:59.999999+05:30', '-1 day +02:00:00.000001', '-0.000001')",
          "INSERT INTO full_t SELECT g, 'v' || g, " + big + ", g FROM generate_series(1, 3) g",
          "INSERT INTO other VALUES ('a', 1), ('b', 2)");
      db.execute("UPDATE t SET i4 = 7 WHERE id = 1", // big unchanged: TOASTed, absent
          "UPDATE full_t SET n = n + 10 WHERE id = 1", // big unchanged, but in the FULL old image
          "UPDATE t SET id = 1001 WHERE id = 2", // a primary-key change
          "DELETE FROM t WHERE id = 3", "DELETE FROM full_t WHERE id = 2",
          "UPDATE other SET v = NULL WHERE k = 'a'");
      db.execute("BEGIN; INSERT INTO other VALUES ('c', 3);"
          + " SELECT pg_logical_emit_message(true, 'pg2lite.test', 'in a transaction');"
          + " SELECT pg_logical_emit_message(false, 'pg2lite.test', 'outside');"
          + " UPDATE other SET v = 4 WHERE k = 'c'; COMMIT");
      db.execute("ALTER TABLE other ADD COLUMN extra text DEFAULT 'x'", "INSERT INTO other VALUES ('d', 5, 'y')",
          "ALTER TABLE other ALTER COLUMN v TYPE text", "INSERT INTO other VALUES ('e', 'six', 'z')",
          "ALTER TABLE other DROP COLUMN extra", "UPDATE other SET v = 'seven' WHERE k = 'a'");
      db.execute("TRUNCATE other, full_t");
      db.execute("INSERT INTO other VALUES ('last', 'row')");
      long end = Long.parseLong(db.queryColumn("SELECT (pg_current_wal_lsn() - '0/0')::text").get(0));

      List<ReplicationEvent> decoded = drain(reader(stack, db, null), end);
      List<String> decoder = describe(decoded);
      String expected = new String(DecoderEventsIT.class.getResourceAsStream(EXPECTED).readAllBytes(),
          StandardCharsets.UTF_8);
      Path actual = Path.of("target", "decoder-events.txt");
      Files.writeString(actual, String.join("\n", decoder) + "\n");
      assertEquals(expected, String.join("\n", decoder) + "\n", "the decoder's events differ from " + EXPECTED
          + " (written to " + actual.toAbsolutePath() + "; diff them): a Debezium upgrade or a mapping change "
          + "altered what the source hands out");

      // Resuming from the position a commit in the middle handed out (as pg2lite stores it, under
      // its upstream prefix) hands out exactly what followed that commit, nothing twice.
      int middle = -1;
      for (int i = decoded.size() / 2; i < decoded.size() && middle < 0; i++) {
        if (decoded.get(i) instanceof ReplicationEvent.TxEnd) {
          middle = i;
        }
      }
      Map<String, Object> stored = new HashMap<>();
      ((ReplicationEvent.TxEnd) decoded.get(middle)).position()
          .forEach((k, v) -> stored.put(SourcePosition.UPSTREAM_PREFIX + k, v));
      // Relation messages are per connection (before a table's first change on it): a new one sends
      // them again, so they are compared apart from the rest.
      List<String> resumed = describe(withoutRelations(drain(reader(stack, db, SourcePosition.commitLsnOf(stored)),
          end)));
      assertEquals(String.join("\n", describe(withoutRelations(decoded.subList(middle + 1, decoded.size())))),
          String.join("\n", resumed),
          "a reader resumed after the commit at event " + middle + " hands out the rest, from the next event on");
    }
  }

  private static List<ReplicationEvent> withoutRelations(List<ReplicationEvent> events) {
    return events.stream().filter(e -> !(e instanceof ReplicationEvent.Relation)).toList();
  }

  /** The source's reader of the slot, as the source wires it, resuming after {@code lsn} (null: the slot's position). */
  private static ReplicationStream reader(TestStack stack, TestDatabase db, Long lsn) {
    SourceConfig config = config(stack, db, "eq_decoder");
    // No TLS settings: PostgresConnections writes no files, so there is nothing to close.
    return new HealingReplicationStream(config.slot, DecoderSession.opener(config, PostgresConnections.open(config)),
        DecoderSession.batchSize(config), 0, () -> lsn, () -> lsn,
        Healing.forRetries("test", 1000, 1000, "none", LoggerFactory.getLogger("test")));
  }

  private static SourceConfig config(TestStack stack, TestDatabase db, String slot) {
    Map<String, String> props = new HashMap<>();
    props.put("database.hostname", stack.postgres().host());
    props.put("database.port", String.valueOf(stack.postgres().port()));
    props.put("database.dbname", db.name());
    props.put("database.user", stack.postgres().user());
    props.put("database.password", stack.postgres().password());
    props.put("slot.name", slot);
    props.put("publication.name", "eq_pub");
    props.put("topic", "unused");
    props.put("kafka.bootstrap.servers", "unused:9092");
    props.put("heartbeat.interval.ms", "0"); // a heartbeat would write WAL the other slot decodes
    return new SourceConfig(props);
  }

  /** Reads until a commit at or past {@code endLsn}; returns every event but heartbeats. */
  private static List<ReplicationEvent> drain(ReplicationStream stream, long endLsn)
      throws InterruptedException {
    List<ReplicationEvent> out = new ArrayList<>();
    long deadline = System.nanoTime() + WAIT.toNanos();
    try {
      stream.start();
      long last = 0;
      while (last < endLsn) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("stream did not reach " + endLsn + " (at " + last + "): " + out);
        }
        for (ReplicationEvent e : stream.poll()) {
          if (e instanceof ReplicationEvent.TxEnd end) {
            last = end.commitLsn().value();
          }
          if (e instanceof ReplicationEvent.Interrupted i) {
            throw new AssertionError("stream interrupted: " + i.reason());
          }
          if (!(e instanceof ReplicationEvent.Heartbeat)) {
            out.add(e);
          }
        }
      }
    } finally {
      stream.close();
    }
    return out;
  }

  /**
   * The events as text, with what differs from run to run replaced by its order of appearance:
   * transaction ids ({@code tx1}, {@code tx2}, ...), commit LSNs ({@code lsn1}, ...), commit times.
   */
  private static List<String> describe(List<ReplicationEvent> events) {
    Map<Long, String> txs = new HashMap<>();
    Map<Long, String> lsns = new HashMap<>();
    List<String> out = new ArrayList<>();
    for (ReplicationEvent e : events) {
      String text = describe(e);
      for (long tx : txIdsOf(e)) {
        text = text.replace(" " + tx + " ", " " + txs.computeIfAbsent(tx, t -> "tx" + (txs.size() + 1)) + " ")
            .replaceAll(" " + tx + "$", " " + txs.get(tx));
      }
      if (e instanceof ReplicationEvent.TxEnd end) {
        long lsn = end.commitLsn().value();
        String name = lsns.computeIfAbsent(lsn, l -> "lsn" + (lsns.size() + 1));
        text = text.replace(end.commitLsn().toString(), name).replace(" " + lsn + " ", " " + name + " ");
      }
      out.add(abbreviateLongHex(text));
    }
    return out;
  }

  /** A long run of hex digits (the TOASTed column's digests) as its length and hash, to keep the file readable. */
  private static String abbreviateLongHex(String text) {
    return LONG_HEX.matcher(text).replaceAll(m -> "<" + m.group().length() + " hex digits, hash "
        + Integer.toHexString(m.group().hashCode()) + ">");
  }

  private static final Pattern LONG_HEX = Pattern.compile("[0-9a-f]{200,}");

  private static List<Long> txIdsOf(ReplicationEvent e) {
    if (e instanceof ReplicationEvent.TxBegin b) {
      return List.of(b.txId());
    }
    if (e instanceof ReplicationEvent.TxEnd end) {
      return List.of(end.txId(), ((Number) end.position().get("txId")).longValue());
    }
    if (e instanceof ReplicationEvent.Message m) {
      return m.txId() == null ? List.of() : List.of(m.txId());
    }
    if (e instanceof ReplicationEvent.RowChange c) {
      return List.of(c.txId());
    }
    if (e instanceof ReplicationEvent.Truncate t) {
      return List.of(t.txId());
    }
    if (e instanceof ReplicationEvent.Relation r) {
      return List.of(r.txId());
    }
    return List.of();
  }

  /**
   * An event as text: rows with their column order, message contents as text; of a position only
   * what a restart reads ({@code lsn_commit}, {@code txId}), and not the upstream's event count.
   */
  private static String describe(ReplicationEvent e) {
    if (e instanceof ReplicationEvent.TxBegin b) {
      return "TxBegin " + b.txId() + " ";
    }
    if (e instanceof ReplicationEvent.Truncate t) {
      return "Truncate " + t.txId() + " " + t.table();
    }
    if (e instanceof ReplicationEvent.Relation r) {
      // OIDs of this database's objects differ from run to run: built-in types' are fixed (< 16384).
      return "Relation " + r.txId() + " " + r.schema() + "." + r.name() + " identity " + r.replicaIdentity() + " "
          + r.columns().stream().map(c -> c.name() + ":" + (c.typeOid() < 16384 ? c.typeOid() : "user") + "("
              + c.typmod() + ")" + (c.key() ? " key" : "")).toList();
    }
    if (e instanceof ReplicationEvent.TxEnd end) {
      Map<String, ?> p = end.position();
      return "TxEnd " + end.txId() + " at " + end.commitLsn() + " resumes after " + p.get("lsn_commit")
          + " tx " + p.get("txId") + " " + new TreeMap<>(p).keySet();
    }
    if (e instanceof ReplicationEvent.Message m) {
      return "Message " + m.txId() + " " + m.prefix() + " " + new String(m.content(), StandardCharsets.UTF_8);
    }
    if (e instanceof ReplicationEvent.RowChange c) {
      return "RowChange " + c.txId() + " " + c.op() + " " + c.table() + " key " + c.keyColumns() + " before "
          + c.before() + " after " + c.after();
    }
    return e.toString();
  }
}
