package io.pg2lite.source.replication;

import io.pg2lite.protocol.watermark.Lsn;
import java.util.Map;

/**
 * What the source must know about an upstream position before any stream runs, without
 * interpreting it otherwise: the LSN a restart from it would confirm to the slot. On start the
 * source compares it with the slot's confirmed position: a slot that has confirmed more than
 * the stored position was dropped and recreated, and the changes in between are lost.
 */
public interface UpstreamPositions {
  /** The LSN the position resumes after, or null when it holds none. */
  Lsn resumeLsn(Map<String, ?> position);
}
