package io.pg2lite.source.schema;

import io.pg2lite.protocol.watermark.Watermark;
import java.util.Map;

/**
 * The tracked schema as of one commit of the change log, as the source records it for restarts
 * (ADR 0028): a restart resumes the stream after its stored commit, so it must resume with the
 * schema of that commit, not the catalog's of now.
 *
 * @param at the commit watermark the schema holds from (up to the next recorded one)
 * @param replicaVersion the lineage of the change log it belongs to
 * @param describedBy see {@link SchemaTracker#describedBy}
 * @param membership see {@link SchemaTracker#membership}
 * @param detection how schema changes were detected up to {@code at}: a restart that may use
 *     event triggers resumes from the replication stream when that is how the schema was tracked,
 *     since the stream it replays may hold DDL no trigger reported (ADR 0027)
 */
public record RecordedSchema(Watermark at, Watermark replicaVersion, PublishedSchema schema,
    Map<Long, Long> describedBy, Map<Long, Long> membership, DdlDetection detection) {
  public RecordedSchema {
    describedBy = Map.copyOf(describedBy);
    membership = Map.copyOf(membership);
  }
}
