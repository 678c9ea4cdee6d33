package io.pg2lite.replica.snapshot;

/**
 * A snapshot that must not be restored: a manifest that does not parse, data of another size or
 * checksum than its manifest says, or a copy whose replica state disagrees with its manifest.
 * The restorer skips it with a warning and tries the next older one.
 */
public final class CorruptSnapshotException extends Exception {
  private static final long serialVersionUID = 1L;
  private final String reason;

  public CorruptSnapshotException(String snapshot, String reason) {
    super("snapshot " + snapshot + ": " + reason);
    this.reason = reason;
  }

  /** What is wrong, without the snapshot's name. */
  public String reason() {
    return reason;
  }
}
