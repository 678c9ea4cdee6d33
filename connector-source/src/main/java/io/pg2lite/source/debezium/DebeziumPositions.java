package io.pg2lite.source.debezium;

import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.source.replication.UpstreamPositions;
import java.util.Map;

/** Debezium's positions: the commit LSN it resumes after is its {@code lsn_commit}. */
public final class DebeziumPositions implements UpstreamPositions {
  @Override
  public Lsn resumeLsn(Map<String, ?> position) {
    Object lsn = position == null ? null : position.get("lsn_commit");
    return lsn == null ? null : new Lsn(((Number) lsn).longValue());
  }
}
