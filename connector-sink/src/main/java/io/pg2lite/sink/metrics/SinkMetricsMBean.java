package io.pg2lite.sink.metrics;

import io.pg2lite.connect.metrics.FlowMBean;

/** JMX view of a running sink task: {@code io.pg2lite:type=sink,connector=<name>}. */
public interface SinkMetricsMBean extends FlowMBean {
  /** Watermark of the last upstream transaction committed to the replica. */
  String getReplicaWatermark();

  /** Kafka offset of that transaction's commit record. */
  long getReplicaOffset();

  /**
   * Records between the replica's position and the end of the change log (approximate: Kafka
   * transaction markers take offsets too); read when asked, at most every 5 s; -1 when unknown
   * (no {@code kafka.bootstrap.servers}, or the broker cannot be asked).
   */
  long getLagRecords();

  /**
   * When the replica became full (epoch ms): SQLite refused a write for want of room on its
   * filesystem or under {@code replica.max.size.bytes}. The task retries meanwhile, with no time
   * limit; -1 when it is not full, which it is again once it has applied for
   * {@code retry.backoff.max.ms} without meeting a full replica.
   */
  long getReplicaFullSince();

  /** Usable bytes on the replica's filesystem; read when asked, at most every 5 s; -1 when unknown. */
  long getReplicaFreeBytes();

  /**
   * Hanging Kafka transactions on the change log that the sink stalls behind, reported and still
   * open (a gauge; each is also one WARN line with the runbook step): alert on anything above 0.
   * 0 without {@code kafka.bootstrap.servers}, which the sink needs to look.
   */
  int getHangingTransactions();

  /** Hanging Kafka transactions the sink aborted since the task started ({@code hanging.transactions.abort=true}). */
  long getHangingTransactionsAbortedTotal();

  /** Snapshots this task published since it started (0 without {@code snapshot.dir}). */
  long getSnapshotsTaken();

  /** Offset of the last snapshot this task published; -1 before any. */
  long getLastSnapshotOffset();

  /** Size in bytes of that snapshot. */
  long getLastSnapshotBytes();

  /** How long taking and publishing it took. */
  long getLastSnapshotMillis();

  /** Offset of the snapshot this task's replica was restored from when it started; -1 when none. */
  long getRestoredSnapshotOffset();

  /**
   * Since when taking snapshots has failed (epoch ms), -1 while they succeed: the store
   * unreachable, its disk full. The replica goes on; each interval tries again.
   */
  long getSnapshotFailingSince();

  /**
   * The oldest offset a new replica could start from: the oldest snapshot in the store that the
   * topic still covers (offset + 1 &gt;= log start), or 0 while the topic still holds its first
   * record; -1 when none can (a new replica would fail "too far behind") or it cannot be read.
   * Read when asked, at most every 5 s. Check the retention rule with it (operations.md).
   */
  long getOldestRestorableOffset();

  /** The replica version (lineage) of the replica readers open at {@code replica.path}; "" before its first commit. */
  String getReplicaVersion();

  /**
   * The replica version of a new lineage being built beside the replica ({@code <replica.path>.lineage-<version>}),
   * "" when none is: the replica stays at {@link #getReplicaVersion()}, frozen, until this one is
   * complete and swapped in. {@link #getReplicaWatermark()} and {@link #getReplicaOffset()} are the
   * build's once it has committed (where the sink resumes).
   */
  String getBuildingReplicaVersion();

  /** When a new lineage's replica last replaced the replica (ISO-8601), in this task's life; "" before. */
  String getLastLineageSwap();

  /**
   * Since when (epoch ms) the replica cannot follow its lineage, as records it needs were deleted
   * from the topic, and waits for a new one ({@code resync.auto}); -1 while it follows. Alert on it.
   */
  long getStrandedSince();

  /**
   * The copies under way as this replica applies them (what its readers see arrive), one per
   * table: rows of rows, rate, ETA; empty when none runs. A table being copied whole is complete
   * once it leaves this list ({@code _pg2lite.columns.backfill} is then null for all its columns).
   */
  String getBackfillProgress();

  /** Rows this replica still has to receive, over all copies under way. */
  long getBackfillRowsRemaining();

  /**
   * The watermark of the last verification this replica completed (pg2lite.verify() on the
   * source), whatever its outcome ({@code _pg2lite.verify} holds each table's); "" before any.
   */
  String getVerifiedAt();

  /** Tables verifications found different from Postgres since the task started: alert on anything above 0. */
  long getVerifyMismatches();
}
