package io.pg2lite.backfill.state;

import io.pg2lite.connect.failure.Backoff;
import io.pg2lite.connect.failure.Healing;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.watermark.Watermark;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which backfills are still required, which one runs, and when the next may start (reference
 * §5.4–5.6). It sees every entry the source writes, main stream and backfill alike, in log order,
 * through {@link #observe}, and changes state only from them, so its state is a function of the
 * change log: that is what makes it safe to store with the log's offsets and restore on restart.
 *
 * <p>Transitions: {@code create-table}/{@code add-column} with backfill ids add columns (add-column
 * never cancels the running copy: a later run picks the column up); {@code rename-table} re-keys;
 * {@code drop-table} removes; {@code update-table-metadata} and the rename or drop of a column being
 * copied cancel the running copy, whose snapshot no longer matches; {@code backfill-completed}
 * removes the copied and row-key columns. A committed update that changes a row key of the table
 * being copied makes snapshots older than that commit useless ({@link RunningBackfill#minSnapshot}).
 *
 * <p>Which request runs next is chosen at random among those required (among those the live
 * stream changed since, when there are any: tables in use are copied first), so one table that
 * keeps failing (no row key yet) never holds back the others; failures back off 2 s doubling to 60 s
 * ({@link #copies}).
 */
public final class BackfillStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(BackfillStateMachine.class);

  private final Map<String, BackfillRequest> required = new LinkedHashMap<>();
  /**
   * The time of the call being handled: the machine is driven with explicit times (its callers'
   * clock, a test's), and {@link #copies} reads it through this field.
   */
  private long nowMillis;
  /**
   * Heals failed copies: 2 s doubling to 60 s, back to 2 s after a copy ends normally, never
   * giving up. A copy that fails for a lasting reason (a non-empty table without a row key) so
   * costs one snapshot a minute, and one cut by a passing schema change retries soon.
   */
  private final Healing copies = new Healing("The backfill", new Backoff(Duration.ofSeconds(2),
      Duration.ofSeconds(60), Duration.ofMillis(Long.MAX_VALUE), () -> nowMillis), e -> true,
      "backfills never give up", LOG, () -> nowMillis, 0);
  private final Random random;
  private RunningBackfill running;
  /**
   * Required tables the live stream changed since they were required: copied first, because
   * someone uses them (a replica shows a table once its copy completes). Not part of the stored
   * state: after a restart the order is random again, which only costs waiting.
   */
  private final java.util.Set<String> inUse = new java.util.LinkedHashSet<>();
  private Watermark reached;
  private boolean rowKeyChangeInTx;
  /** Bumped on every change of {@link #required}, so callers can cache its serialized form. */
  private long version;

  public BackfillStateMachine(Collection<BackfillRequest> initial, Watermark reached, Random random) {
    initial.forEach(r -> required.put(r.key(), r));
    this.reached = reached;
    this.random = random;
  }

  /** The required backfills, in no meaningful order. */
  public List<BackfillRequest> required() {
    return List.copyOf(required.values());
  }

  /** Whether any backfill is required (cheap: no copy of the requests). */
  public boolean hasRequired() {
    return !required.isEmpty();
  }

  public long version() {
    return version;
  }

  public RunningBackfill running() {
    return running;
  }

  /** True once the change log holds a commit at or after {@code watermark}. */
  public boolean reached(Watermark watermark) {
    return reached != null && !watermark.isAfter(reached);
  }

  /**
   * The main stream has advanced to {@code watermark} without writing a transaction (a transaction
   * on no published table, a heartbeat): the log has reached it as surely as with a commit.
   */
  public void mainStreamAt(Watermark watermark) {
    if (reached == null || watermark.isAfter(reached)) {
      reached = watermark;
    }
  }

  /**
   * Starts the next copy if none runs, no retry is pending and one is required; null otherwise.
   */
  public RunningBackfill startNext(long nowMillis) {
    this.nowMillis = nowMillis;
    if (running != null || required.isEmpty() || copies.untilNextAttempt() > 0) {
      return null;
    }
    List<BackfillRequest> candidates = new ArrayList<>();
    for (String key : inUse) {
      candidates.add(required.get(key));
    }
    if (candidates.isEmpty()) {
      candidates.addAll(required.values());
    }
    running = new RunningBackfill(candidates.get(random.nextInt(candidates.size())));
    return running;
  }

  /**
   * The copy failed: it stops, and the next start waits for the backoff delay. Logged at INFO while
   * the failures are routine (a copy cut by a schema change of its table, or by a reconnect), at
   * WARN once they last.
   */
  public void failed(RunningBackfill run, String reason, long nowMillis) {
    stop(run, reason);
    inUse.remove(run.request().key()); // a table that keeps failing must not keep the others waiting
    this.nowMillis = nowMillis;
    copies.failedTransiently("the copy of " + run.request().key() + " failed: " + reason,
        "copying it or another table again from a new snapshot");
  }

  /** The runner gave up a cancelled copy; another may start at once. */
  public void abandoned(RunningBackfill run) {
    stop(run, "abandoned");
  }

  /** Milliseconds until a retry may start, 0 when none is pending. */
  public long retryDelay(long nowMillis) {
    this.nowMillis = nowMillis;
    return copies.untilNextAttempt();
  }

  /** Applies one entry the source wrote, in log order. */
  public void observe(ChangeLogEntry entry) {
    Message m = entry.message();
    if (m instanceof Commit) {
      if (rowKeyChangeInTx && running != null) {
        running.rowKeyChangedAt(entry.watermark());
      }
      rowKeyChangeInTx = false;
      mainStreamAt(entry.watermark());
    } else if (m instanceof SchemaChange.BackfillCompleted bc) {
      completed(bc);
    } else if (m instanceof SchemaChange sc) {
      schemaChange(sc);
    } else if (m instanceof DataChange.Update u) {
      rowKeyChangeInTx |= running != null && changesRowKey(u);
      noteUse(u.relation().table());
    } else if (m instanceof DataChange.Insert i) {
      noteUse(i.relation().table());
    } else if (m instanceof DataChange.Delete d) {
      noteUse(d.relation().table());
    } else if (m instanceof Rollback) {
      rowKeyChangeInTx = false;
    } else if (!(m instanceof DataChange) && !(m instanceof Begin) && !(m instanceof io.pg2lite.protocol.message.Verify)) {
      throw new IllegalStateException("unhandled message " + m.tag()); // a verify changes no copy
    }
  }

  private boolean changesRowKey(DataChange.Update u) {
    if (u.key() == null || !u.relation().table().equals(running.request().table())
        || running.request().metadata() == null) {
      return false;
    }
    Row key = u.key();
    for (String col : running.request().metadata().rowKey().keySet()) {
      if (key.contains(col) && u.row().contains(col) && !Objects.equals(key.get(col), u.row().get(col))) {
        return true;
      }
    }
    return false;
  }

  private void schemaChange(SchemaChange sc) {
    if (sc instanceof SchemaChange.CreateTable ct) {
      if (ct.backfill() != null && !ct.backfill().isEmpty()) {
        QualifiedName t = new QualifiedName(ct.spec().schema(), ct.spec().name());
        put(new BackfillRequest(t, ct.metadata(), ct.backfill()));
      }
    } else if (sc instanceof SchemaChange.AddColumn ac) {
      if (ac.backfill() != null) {
        BackfillRequest existing = required.get(key(ac.table()));
        Map<String, BackfillId> cols = new LinkedHashMap<>(existing == null ? Map.of() : existing.columns());
        cols.put(ac.column().name(), ac.backfill());
        put(new BackfillRequest(ac.table(), ac.tableMetadata(), cols));
      }
    } else if (sc instanceof SchemaChange.UpdateTableMetadata um) {
      BackfillRequest r = required.get(key(um.table()));
      if (r != null) {
        put(r.withMetadata(um.updated()));
        cancelIfRunning(um.table(), null, "table metadata updated");
      }
    } else if (sc instanceof SchemaChange.RenameTable rt) {
      BackfillRequest r = remove(key(rt.old()));
      if (r != null) {
        put(r.withTable(rt.renamed()));
        cancelIfRunning(rt.old(), null, "table renamed");
      }
    } else if (sc instanceof SchemaChange.DropTable dt) {
      if (remove(key(dt.id())) != null) {
        cancelIfRunning(dt.id(), null, "table dropped");
      }
    } else if (sc instanceof SchemaChange.UpdateColumn uc) {
      String oldName = uc.old().name();
      BackfillRequest r = required.get(key(uc.table()));
      if (r != null && !oldName.equals(uc.updated().name()) && r.columns().containsKey(oldName)) {
        Map<String, BackfillId> cols = new LinkedHashMap<>();
        r.columns().forEach((c, id) -> cols.put(c.equals(oldName) ? uc.updated().name() : c, id));
        put(r.withColumns(cols));
        cancelIfRunning(uc.table(), oldName, "column renamed");
      }
    } else if (sc instanceof SchemaChange.DropColumn dc) {
      BackfillRequest r = required.get(key(dc.table()));
      if (r != null && r.columns().containsKey(dc.column())) {
        Map<String, BackfillId> cols = new LinkedHashMap<>(r.columns());
        cols.remove(dc.column());
        if (cols.isEmpty()) {
          remove(r.key());
        } else {
          put(r.withColumns(cols));
        }
        cancelIfRunning(dc.table(), dc.column(), "column dropped");
      }
    }
    // create-index and drop-index change nothing a copy depends on.
  }

  private void completed(SchemaChange.BackfillCompleted bc) {
    QualifiedName t = bc.relation().table();
    BackfillRequest r = required.get(key(t));
    if (r == null) {
      // Only after an at-least-once restart re-sent transactions the state had already passed.
      LOG.warn("backfill-completed for {}, which has no pending backfill", t);
    } else {
      Map<String, BackfillId> cols = new LinkedHashMap<>(r.columns());
      bc.columns().forEach(cols::remove);
      bc.relation().rowKey().columns().forEach(cols::remove);
      if (cols.isEmpty()) {
        remove(r.key());
      } else {
        put(r.withColumns(cols));
      }
    }
    if (running != null && running.request().table().equals(t)) {
      copies.succeeded();
      running = null;
    }
  }

  private void cancelIfRunning(QualifiedName table, String column, String reason) {
    if (running != null && running.request().table().equals(table)
        && (column == null || running.request().columns().containsKey(column))) {
      LOG.info("Cancelling the backfill of {}: {}", table, reason);
      stop(running, reason);
    }
  }

  private void stop(RunningBackfill run, String reason) {
    run.cancel(reason);
    if (running == run) {
      running = null;
    }
  }

  /** A live change of {@code table}: if its copy is pending, it goes before those nobody uses. */
  private void noteUse(QualifiedName table) {
    String key = key(table);
    if (required.containsKey(key)) {
      inUse.add(key);
    }
  }

  private void put(BackfillRequest r) {
    required.put(r.key(), r);
    version++;
  }

  private BackfillRequest remove(String key) {
    BackfillRequest r = required.remove(key);
    inUse.remove(key);
    if (r != null) {
      version++;
    }
    return r;
  }

  private static String key(QualifiedName t) {
    return t.schema() + "." + t.name();
  }
}
