package io.pg2lite.source.transaction;

import io.pg2lite.protocol.watermark.Watermark;
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
 * @param legacySchemaId the id, in {@code pg2lite.schema_history}, of the published schema as of
 *     {@code lastCommit}, in offsets stored by releases that kept the schema history in Postgres
 *     (ADR 0009); read once, to find that schema, and never written: the schema history is now
 *     in Kafka (ADR 0028)
 * @param verifies the verify requests not yet answered, as JSON (backfill module, {@code verify}),
 *     or null when none: stored like the backfills, so a request survives a restart
 */
public record SourcePosition(Watermark replicaVersion, Watermark lastCommit, Map<String, ?> upstream,
    String backfills, Long legacySchemaId, String verifies) {
  static final String REPLICA_VERSION = "replicaVersion";
  static final String WATERMARK = "watermark";
  static final String BACKFILLS = "backfills";
  static final String SCHEMA_ID = "schemaId";
  static final String VERIFIES = "verifies";
  /**
   * Keys of the upstream position inside the offset map start with this. The position is the
   * replication stream's, opaque here; it shares pg2lite's map so Connect writes both atomically.
   * ("dbz." for Debezium, whose position it has always been: stored offsets keep their keys.)
   */
  public static final String UPSTREAM_PREFIX = "dbz.";

  public SourcePosition(Watermark replicaVersion, Watermark lastCommit, Map<String, ?> upstream) {
    this(replicaVersion, lastCommit, upstream, null, null, null);
  }

  public SourcePosition(Watermark replicaVersion, Watermark lastCommit, Map<String, ?> upstream, String backfills,
      Long legacySchemaId) {
    this(replicaVersion, lastCommit, upstream, backfills, legacySchemaId, null);
  }

  /** The offset map for Connect. */
  public Map<String, Object> toOffset() {
    Map<String, Object> m = new HashMap<>();
    if (upstream != null) {
      upstream.forEach((k, v) -> m.put(UPSTREAM_PREFIX + k, v));
    }
    m.put(REPLICA_VERSION, replicaVersion.toString());
    m.put(WATERMARK, lastCommit.toString());
    if (backfills != null) {
      m.put(BACKFILLS, backfills);
    }
    if (verifies != null) {
      m.put(VERIFIES, verifies);
    }
    return m;
  }

  /** Reads a stored offset map; null when nothing is stored. */
  public static SourcePosition fromOffset(Map<String, ?> offset) {
    if (offset == null || offset.get(WATERMARK) == null) {
      return null;
    }
    return new SourcePosition(Watermark.parse((String) offset.get(REPLICA_VERSION)),
        Watermark.parse((String) offset.get(WATERMARK)), upstreamOf(offset),
        (String) offset.get(BACKFILLS),
        offset.get(SCHEMA_ID) == null ? null : ((Number) offset.get(SCHEMA_ID)).longValue(),
        (String) offset.get(VERIFIES));
  }

  /**
   * The commit LSN a stored offset map resumes after ({@code lsn_commit} of its upstream part, in
   * Debezium's offset keys, as every pg2lite release stored it), or null when there is none.
   */
  public static Long commitLsnOf(Map<String, ?> stored) {
    Map<String, Object> upstream = upstreamOf(stored);
    Object lsn = upstream == null ? null : upstream.get("lsn_commit");
    return lsn == null ? null : ((Number) lsn).longValue();
  }

  /** The upstream position inside a stored offset map, or null when none is stored. */
  public static Map<String, Object> upstreamOf(Map<String, ?> stored) {
    if (stored == null) {
      return null;
    }
    Map<String, Object> out = new HashMap<>();
    stored.forEach((k, v) -> {
      if (k.startsWith(UPSTREAM_PREFIX)) {
        out.put(k.substring(UPSTREAM_PREFIX.length()), v);
      }
    });
    return out.isEmpty() ? null : out;
  }

  /** The position after a transaction (or heartbeat) that ended at {@code commit}. */
  SourcePosition after(Watermark commit, Map<String, ?> newUpstream) {
    return new SourcePosition(replicaVersion, commit, newUpstream, backfills, null, verifies);
  }

  public SourcePosition withBackfills(String json) {
    return java.util.Objects.equals(json, backfills) ? this
        : new SourcePosition(replicaVersion, lastCommit, upstream, json, legacySchemaId, verifies);
  }

  public SourcePosition withVerifies(String json) {
    return java.util.Objects.equals(json, verifies) ? this
        : new SourcePosition(replicaVersion, lastCommit, upstream, backfills, legacySchemaId, json);
  }
}
