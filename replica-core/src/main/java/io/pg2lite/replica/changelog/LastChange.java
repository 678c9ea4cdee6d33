package io.pg2lite.replica.changelog;

import io.pg2lite.protocol.watermark.Watermark;
import java.util.Map;

/**
 * The last recorded operation of a row: what it was, the commit watermark of the transaction
 * that did it, and per hidden column the commit watermark of the last change that wrote that
 * column (empty unless {@link Operation#SET}).
 */
public record LastChange(Operation op, Watermark version, Map<String, Watermark> columnVersions) {
  /** Whether this operation is newer than a snapshot taken at {@code snapshot}. */
  public boolean isAfter(Watermark snapshot) {
    return version.compareTo(snapshot) > 0;
  }
}
