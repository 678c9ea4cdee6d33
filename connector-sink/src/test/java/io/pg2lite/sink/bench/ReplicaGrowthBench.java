package io.pg2lite.sink.bench;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.sink.Pg2liteSinkTask;
import io.pg2lite.testkit.support.SvgPlot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The sink's apply rate as the replica grows (issue 26, item 3), without a broker: pre-encoded
 * change-log records go straight into a real {@link Pg2liteSinkTask#put}, as in SinkBench's
 * {@code apply-only} mode, and only {@code put()} is timed.
 *
 * <p>Two layouts: one table, and ten tables (row {@code id} in table {@code id % 10}), both with
 * SinkBench's columns. The replica grows by sequential inserts in 1,000-row transactions; at each
 * checkpoint (default 1M, 2M, 5M, 10M, 20M rows, those up to {@code maxRows}) two probes run:
 * {@code probeRows} new rows (sequential ids, 1k-row transactions; they count toward the next
 * checkpoint) and {@code probeRows} single-row updates of random existing ids (seeded, so each run
 * touches the same rows), 1,000 per transaction. Sequential inserts only touch the right edge of
 * each B-tree, so they should not feel the size; random updates reach a leaf of the table and of
 * the row-key index per row, so they show what the page cache (64 MB, ReplicaFile) and the WAL
 * cost once the replica outgrows it. Bytes read and written by this JVM per probe row
 * ({@code /proc/self/io}, rchar/wchar: syscalls, whether or not the OS cache served them) are
 * printed beside the rates to say which of the two it is.
 *
 * <p>What bends (smoke run to 2M rows): inserts stay flat; updates fall from ~40k/s (replica
 * under the 64 MB cache) to ~21k/s at 2M rows, as written bytes per update grow from ~9 KB to
 * ~22 KB: past a few hundred thousand rows each random update dirties its own table leaf and
 * key-index leaf (the UPDATE sets the unchanged key column too, so SQLite rewrites the index
 * entry), each written to the WAL and again by the checkpoint, and reads its pages from outside
 * the cache.
 *
 * <pre>
 * mvn -B -o -q -pl connector-sink -am package -DskipTests dependency:build-classpath \
 *     -Dmdep.outputFile=/tmp/cp-rg.txt -Dmdep.includeScope=test
 * java [-Dpg2lite.bench.maxRows=20000000] [-Dpg2lite.bench.checkpoints=1000000,2000000,...] \
 *     [-Dpg2lite.bench.probeRows=50000] [-Dpg2lite.bench.plotDir=docs/performance] \
 *     -cp connector-sink/target/test-classes:connector-sink/target/classes:$(cat /tmp/cp-rg.txt) \
 *     io.pg2lite.sink.bench.ReplicaGrowthBench
 * </pre>
 * Writes {@code replica-growth.svg} and ends with {@code replica-growth-bench: key=value ...}.
 */
public final class ReplicaGrowthBench {
  private static final long MAX_ROWS = Long.getLong("pg2lite.bench.maxRows", 20_000_000L);
  private static final int PROBE_ROWS = Integer.getInteger("pg2lite.bench.probeRows", 50_000);
  private static final Path PLOTS = Path.of(System.getProperty("pg2lite.bench.plotDir", "docs/performance"));
  private static final long[] CHECKPOINTS = Arrays.stream(System.getProperty("pg2lite.bench.checkpoints",
      "1000000,2000000,5000000,10000000,20000000").split(",")).mapToLong(Long::parseLong)
      .filter(c -> c <= MAX_ROWS).toArray();
  private static final int TX_ROWS = 1000;
  private static final int BATCH = 500;

  public static void main(String[] args) throws Exception {
    Path work = Files.createTempDirectory("pg2lite-replica-growth");
    SvgPlot plot = new SvgPlot("Apply rate as the replica grows", "rows in the replica", "rows/s", true);
    StringBuilder summary = new StringBuilder("replica-growth-bench:");
    System.out.printf("%-9s %10s %8s %9s %9s %9s %9s %8s %8s%n", "layout", "rows", "file MB", "pages",
        "fill r/s", "insert/s", "update/s", "upd rKB", "upd wKB");
    for (int tables : new int[] {1, 10}) {
      String layout = tables + (tables == 1 ? " table" : " tables");
      Feed feed = new Feed(work.resolve("replica-" + tables + ".db"), tables);
      for (long checkpoint : CHECKPOINTS) {
        long fillRows = checkpoint - feed.rows;
        double fillRate = fillRows / (feed.insert(fillRows) / 1e9);
        double insertRate = PROBE_ROWS / (feed.insert(PROBE_ROWS) / 1e9);
        long[] io0 = procIo();
        double updateRate = PROBE_ROWS / (feed.update(PROBE_ROWS) / 1e9);
        long[] io1 = procIo();
        long pages = feed.pageCount();
        System.out.printf("%-9s %10d %8d %9d %9.0f %9.0f %9.0f %8.1f %8.1f%n", layout, checkpoint,
            Files.size(feed.path) >> 20, pages, fillRate, insertRate, updateRate,
            (io1[0] - io0[0]) / 1024.0 / PROBE_ROWS, (io1[1] - io0[1]) / 1024.0 / PROBE_ROWS);
        plot.point(layout + ", inserts", checkpoint, insertRate).point(layout + ", updates", checkpoint, updateRate);
        String k = "t" + tables + "_" + checkpoint;
        summary.append(String.format(" %s_fill=%.0f %s_insert=%.0f %s_update=%.0f %s_mb=%d", k, fillRate, k,
            insertRate, k, updateRate, k, Files.size(feed.path) >> 20));
      }
      feed.task.stop();
      Files.deleteIfExists(feed.path); // at 20M rows a file is ~2 GB: do not keep two
    }
    System.out.println("plot: " + plot.write(PLOTS.resolve("replica-growth.svg")));
    System.out.println(summary);
  }

  /** One replica and the log that feeds it: ids, LSNs and offsets carry on across the phases. */
  private static final class Feed {
    private final ChangeLogCodec codec = new ChangeLogCodec();
    private final Pg2liteSinkTask task = new Pg2liteSinkTask();
    private final Random random = new Random(26);
    private final Path path;
    private final List<Relation> tables = new ArrayList<>();
    private final List<SinkRecord> batch = new ArrayList<>(BATCH);
    private long rows;
    private long lsn = 0x1000;
    private long xid = 1;
    private long offset;
    private long nanos;

    Feed(Path path, int count) throws Exception {
      this.path = path;
      task.initialize(new SinkBench.NoContext());
      task.start(Map.of("replica.path", path.toString()));
      Map<String, ColumnSpec> cols = SinkBench.itemColumns();
      ChangeMessages tx = begin();
      for (int i = 0; i < count; i++) {
        String name = count == 1 ? "item" : "item_" + i;
        tables.add(new Relation("public", name, RowKey.of("id")));
        tx.change(new SchemaChange.CreateTable(new TableSpec("public", name, cols, List.of("id")),
            new TableMetadata(2200, 16384 + i, Map.of("id", 1)), null));
      }
      send(tx);
    }

    /** Appends {@code n} rows (next ids) in 1k-row transactions; returns the nanoseconds in put(). */
    long insert(long n) throws Exception {
      nanos = 0;
      for (long done = 0; done < n; ) {
        ChangeMessages tx = begin();
        for (int r = 0; r < TX_ROWS && done < n; r++, done++) {
          long id = ++rows;
          tx.insert(table(id), row(id, "item " + id, "2026-11-29T10:00:00.123456Z"));
        }
        send(tx);
      }
      flush();
      return nanos;
    }

    /** Updates {@code n} random existing rows, whole rows as Postgres sends them (key unchanged). */
    long update(int n) throws Exception {
      nanos = 0;
      for (int done = 0; done < n; ) {
        ChangeMessages tx = begin();
        for (int r = 0; r < TX_ROWS && done < n; r++, done++) {
          long id = 1 + random.nextLong(rows);
          tx.update(table(id), null, row(id, "updated " + id, "2026-11-30T10:00:00.654321Z"));
        }
        send(tx);
      }
      flush();
      return nanos;
    }

    private Relation table(long id) {
      return tables.get((int) (id % tables.size()));
    }

    private static Row row(long id, String name, String updated) {
      return Row.of("id", Value.of(id), "name", Value.of(name), "price", Value.of((id % 1000) + ".25"), "qty",
          Value.of(id % 100), "updated", Value.of(updated));
    }

    private ChangeMessages begin() {
      return ChangeMessages.after(new Lsn(lsn).toString()).begin(xid++);
    }

    /** Encodes a transaction into records, putting each full batch of 500 (Connect's default poll). */
    private void send(ChangeMessages tx) {
      lsn += 0x100;
      for (ChangeLogEntry e : tx.commit(new Lsn(lsn).toString()).entries()) {
        ConnectHeaders headers = new ConnectHeaders();
        headers.addString(ChangeLogHeaders.REPLICA_VERSION, "01");
        batch.add(new SinkRecord("log", 0, null, null, Schema.BYTES_SCHEMA, codec.encode(e), offset++, null, null,
            headers));
        if (batch.size() == BATCH) {
          flush();
        }
      }
    }

    /** Puts what is batched: a phase ends on a flush, so its time includes its last commit. */
    private void flush() {
      long t0 = System.nanoTime();
      task.put(batch);
      nanos += System.nanoTime() - t0;
      batch.clear();
    }

    /** PRAGMA page_count, through a connection of its own (WAL: a reader never blocks the writer). */
    long pageCount() throws Exception {
      try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + path);
          ResultSet rs = c.createStatement().executeQuery("PRAGMA page_count")) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** rchar and wchar of /proc/self/io (bytes through read/write syscalls); zeros off Linux. */
  private static long[] procIo() {
    long[] out = new long[2];
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
        if (line.startsWith("rchar:")) {
          out[0] = Long.parseLong(line.substring(6).trim());
        } else if (line.startsWith("wchar:")) {
          out[1] = Long.parseLong(line.substring(6).trim());
        }
      }
    } catch (Exception e) {
      // not Linux: the columns read 0
    }
    return out;
  }
}
