package io.pg2lite.source.transaction;

import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.debezium.DebeziumOffsets;
import java.util.HashMap;
import java.util.Map;

/**
 * What the source stores in Connect's offsets with each record: the replica version (lineage),
 * the last commit watermark written, and the upstream position to resume after it.
 *
 * <p>Begin and data records carry the position of the previous commit, a commit record its own:
 * whatever record Connect last stored, a restart resumes at a transaction boundary. The pending
 * backfills travel the same way (as of the previous commit on begin and data records, as of their
 * own on commit records), so they are restored with exactly the log position they belong to.
 *
 * @param upstream the replication stream's resume position (opaque), or null before the first
 *     upstream transaction
 * @param backfills the required backfills as JSON (backfill module), or null when none
 */
public record SourcePosition(Watermark replicaVersion, Watermark lastCommit, Map<String, ?> upstream,
    String backfills) {
  static final String REPLICA_VERSION = "replicaVersion";
  static final String WATERMARK = "watermark";
  static final String BACKFILLS = "backfills";

  public SourcePosition(Watermark replicaVersion, Watermark lastCommit, Map<String, ?> upstream) {
    this(replicaVersion, lastCommit, upstream, null);
  }

  /** The offset map for Connect. */
  public Map<String, Object> toOffset() {
    Map<String, Object> m = upstream == null ? new HashMap<>() : DebeziumOffsets.wrap(upstream);
    m.put(REPLICA_VERSION, replicaVersion.toString());
    m.put(WATERMARK, lastCommit.toString());
    if (backfills != null) {
      m.put(BACKFILLS, backfills);
    }
    return m;
  }

  /** Reads a stored offset map; null when nothing is stored. */
  public static SourcePosition fromOffset(Map<String, ?> offset) {
    if (offset == null || offset.get(WATERMARK) == null) {
      return null;
    }
    return new SourcePosition(Watermark.parse((String) offset.get(REPLICA_VERSION)),
        Watermark.parse((String) offset.get(WATERMARK)), DebeziumOffsets.unwrap(offset),
        (String) offset.get(BACKFILLS));
  }

  SourcePosition after(Watermark commit, Map<String, ?> newUpstream) {
    return new SourcePosition(replicaVersion, commit, newUpstream, backfills);
  }

  public SourcePosition withBackfills(String json) {
    return java.util.Objects.equals(json, backfills) ? this
        : new SourcePosition(replicaVersion, lastCommit, upstream, json);
  }
}
