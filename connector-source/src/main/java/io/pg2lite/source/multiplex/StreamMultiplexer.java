package io.pg2lite.source.multiplex;

import io.pg2lite.backfill.verify.VerifyRequest;
import io.pg2lite.backfill.verify.VerifyStream;
import io.pg2lite.protocol.watermark.Watermark;

import io.pg2lite.backfill.BackfillStream;
import io.pg2lite.backfill.schedule.MainStreamState;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.source.transaction.Emitted;
import io.pg2lite.source.transaction.SourcePosition;
import java.util.ArrayList;
import java.util.List;

/**
 * Merges the main stream and the backfill stream into the one ordered log, whole transactions
 * only: after the main-stream entries of a poll, at a transaction boundary, one backfill
 * transaction when {@link io.pg2lite.backfill.schedule.BackfillScheduler} allows (usually not in
 * a poll that wrote a live transaction: that poll ends, so its Kafka transaction commits at once).
 *
 * <p>Every entry written passes through {@link BackfillStream#observe} in log order, and every
 * record's position is stamped with the required backfills as of the last transaction boundary
 * at or before it, so what Connect stores with any record restores the backfill state that
 * belongs to the position it resumes from. A backfill transaction carries the main stream's
 * position unchanged: it is never acknowledged to Postgres.
 *
 * <p>Verifications ({@link VerifyStream}) come last: a verify transaction is written only at a
 * boundary, under the watermark the backfill would give its next transaction (above the last
 * commit, below the next main-stream one), after everything before it was observed by both
 * streams, so the keys it takes out are exactly those the log touched up to its position. The
 * unanswered requests are stamped on positions as the backfills are.
 */
public final class StreamMultiplexer implements AutoCloseable {
  private final BackfillStream backfill;
  private final VerifyStream verify;
  private String committedBackfills;
  private String committedVerifies;
  private SourcePosition lastRaw;
  private SourcePosition lastStamped;

  public StreamMultiplexer(BackfillStream backfill, String storedBackfills) {
    this(backfill, storedBackfills, null);
  }

  /** @param verify the verifications, or null for none (the requests stored then stay as they are) */
  public StreamMultiplexer(BackfillStream backfill, String storedBackfills, VerifyStream verify) {
    this.backfill = backfill;
    this.committedBackfills = storedBackfills;
    this.verify = verify;
    this.committedVerifies = verify == null ? null : verify.requestsJson();
  }

  /**
   * The records to write for this poll: {@code main} (already assembled), then possibly one
   * backfill transaction.
   *
   * @param mainPosition the main stream's position after {@code main}
   */
  public List<Emitted> merge(List<Emitted> main, MainStreamState state, SourcePosition mainPosition) {
    List<Emitted> out = new ArrayList<>(main.size() + 8);
    for (Emitted e : main) {
      out.add(observe(e));
    }
    List<ChangeLogEntry> tx = backfill.nextTransaction(state);
    for (ChangeLogEntry entry : tx) {
      out.add(observe(new Emitted(entry, mainPosition, entry.message() instanceof Commit)));
    }
    if (verify != null && state != MainStreamState.IN_TRANSACTION) {
      Watermark watermark = backfill.nextTransactionWatermark();
      if (watermark != null) {
        for (ChangeLogEntry entry : verify.nextTransaction(watermark)) {
          out.add(observe(new Emitted(entry, mainPosition, entry.message() instanceof Commit)));
        }
      }
    }
    return out;
  }

  /** Whether the backfill is still copying {@code column} of {@code table}, as of the entries merged so far. */
  public boolean copying(QualifiedName table, String column) {
    return backfill.isCopying(table, column);
  }

  private Emitted observe(Emitted e) {
    if (e.entry() != null) {
      backfill.observe(e.entry());
      if (verify != null) {
        verify.observe(e.entry());
      }
    } else if (e.isHeartbeat()) {
      backfill.mainStreamAt(e.position().lastCommit());
    }
    if (e.endsTransaction()) {
      committedBackfills = backfill.requiredJson();
      if (verify != null) {
        committedVerifies = verify.requestsJson();
      }
    }
    return e.withPosition(stamp(e.position()));
  }

  /** Positions are shared by the records of a transaction; so are the stamped ones. */
  private SourcePosition stamp(SourcePosition p) {
    if (p != lastRaw || lastStamped == null || !java.util.Objects.equals(lastStamped.backfills(), committedBackfills)
        || (verify != null && !java.util.Objects.equals(lastStamped.verifies(), committedVerifies))) {
      lastRaw = p;
      lastStamped = p.withBackfills(committedBackfills);
      if (verify != null) {
        lastStamped = lastStamped.withVerifies(committedVerifies);
      }
    }
    return lastStamped;
  }

  /** Asks for a verification; it starts at the next transaction boundary. */
  public void verify(VerifyRequest request) {
    if (verify == null) {
      org.slf4j.LoggerFactory.getLogger(StreamMultiplexer.class).warn("Verification {} asked for, but this source "
          + "does not verify", request.id());
      return;
    }
    verify.request(request);
  }

  @Override
  public void close() {
    backfill.close();
    if (verify != null) {
      verify.close();
    }
  }
}
