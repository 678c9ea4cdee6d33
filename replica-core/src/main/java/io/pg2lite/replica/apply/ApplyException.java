package io.pg2lite.replica.apply;

/**
 * A record the replica cannot apply: a protocol violation, a lineage mismatch, or a change the
 * replica rejects. Names the offset, the watermark and the reason. When it is thrown the open
 * SQLite transaction has been rolled back; nothing committed is lost.
 */
public class ApplyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ApplyException(String topic, int partition, long offset, String watermark, String reason, Throwable cause) {
    super("Cannot apply change-log record " + topic + "-" + partition + "@" + offset + " (watermark " + watermark
        + "): " + reason, cause);
  }
}
