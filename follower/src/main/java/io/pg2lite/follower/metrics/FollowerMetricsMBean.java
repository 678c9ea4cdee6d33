package io.pg2lite.follower.metrics;

/**
 * A follower's figures over JMX, {@code io.pg2lite:type=follower,name=<name>}: what an operator
 * alerts on (state, lag, a stranded or full replica, snapshots failing), the same figures the sink
 * connector's MBean shows under the same names where they mean the same.
 */
public interface FollowerMetricsMBean {
  /** FOLLOWING, STOPPED or FAILED. */
  String getState();

  /** The watermark of the replica's last commit (null before the first). */
  String getWatermark();

  /** The change-log offset of the replica's last commit, -1 before the first. */
  long getOffset();

  /** Records of the change log not read yet, -1 before the first assignment. */
  long getLag();

  /** Since when the replica has been full (epoch ms), -1 when it is not. */
  long getReplicaFullSince();

  /** Since when the replica has been stranded, waiting for a new lineage (epoch ms), -1 when it is not. */
  long getStrandedSince();

  /** Since when taking snapshots has failed (epoch ms), -1 while they succeed or when none are taken. */
  long getSnapshotFailingSince();

  /** The offset of the snapshot the replica was restored from at start, -1 when none was. */
  long getRestoredSnapshotOffset();

  /**
   * Where live transactions' time went, per stage, p50 and p99 over the last 1,024: Postgres
   * commit → fetched by this follower → committed to its replica. The first stage is read against
   * Postgres's clock. "" before the first.
   */
  String getLatencyStages();

  /** Postgres commit → replica commit, p50, in milliseconds; -1 before the first. */
  double getCommitLatencyP50Millis();

  /** Postgres commit → replica commit, p99, in milliseconds; -1 before the first. */
  double getCommitLatencyP99Millis();

  /**
   * The watermark of the last verification this replica completed (pg2lite.verify() on the
   * source), whatever its outcome ({@code _pg2lite.verify} holds each table's); "" before any.
   */
  String getVerifiedAt();

  /** Tables verifications found different from Postgres since the follower started: alert on anything above 0. */
  long getVerifyMismatches();

  /** Starts the stage windows afresh (an operation). */
  void resetLatencyStages();
}
