package io.pg2lite.protocol.message;

/**
 * Names of the Kafka record headers every change-log record carries. They repeat what the value
 * says (kind, watermark, pos, protocol version) plus the lineage, so tools can route or filter
 * without parsing JSON. The value stays authoritative; a consumer that finds them disagreeing
 * must stop.
 */
public final class ChangeLogHeaders {
  /** {@code begin}, {@code data}, {@code commit} or {@code rollback}. */
  public static final String KIND = "pg2lite.kind";
  /** The record's watermark, as in the value. */
  public static final String WATERMARK = "pg2lite.watermark";
  /** The record's position in its transaction, decimal. */
  public static final String POS = "pg2lite.pos";
  /** The protocol version of the value, decimal. */
  public static final String PROTOCOL_VERSION = "pg2lite.protocol";
  /**
   * The replica version: the watermark of the consistent point of the slot the source created.
   * A replica built from another lineage must refuse these records.
   */
  public static final String REPLICA_VERSION = "pg2lite.replica.version";
  /**
   * The record's sequence number in the change log, decimal: 0 for the log's first record, and
   * each record the previous record's number + 1. Unlike the Kafka offset it has no holes
   * (transaction markers and aborted transactions take offsets), so a consumer can tell a record
   * that follows the one it applied last from one that comes after a gap (records deleted by
   * retention, a consumer reset to another offset). The source continues the number of the log's
   * last committed record on every start. Records written before it existed carry none.
   */
  public static final String SEQ = "pg2lite.seq";

  private ChangeLogHeaders() {}
}
