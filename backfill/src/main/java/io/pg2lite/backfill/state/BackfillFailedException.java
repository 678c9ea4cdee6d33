package io.pg2lite.backfill.state;

/**
 * A backfill copy failed in a way no retry cures ({@link CopyFailures}): the source task stops
 * with it, naming the table and the cause, instead of retrying a bug or a missing privilege
 * forever while the replica stays incomplete.
 */
public final class BackfillFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BackfillFailedException(String table, Throwable cause) {
    super("backfill of " + table + " failed and will not heal by retrying: " + describe(cause), cause);
  }

  /** The failure and its root cause, which is what names the problem (a wrapper rarely does). */
  private static String describe(Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == cause ? cause.toString() : cause + ", caused by " + root;
  }
}
