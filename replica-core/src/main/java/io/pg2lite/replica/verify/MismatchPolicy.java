package io.pg2lite.replica.verify;

import java.util.Locale;

/**
 * What a sink or a follower does when a verification finds its replica different from Postgres:
 * the setting {@value #CONFIG}, the same name and meaning for both (their configs define it with
 * {@link #DOC}).
 */
public enum MismatchPolicy {
  /** Log a WARN line and count it; the replica goes on applying. */
  LOG,
  /** The same, then stop: the sink task fails, the follower ends FAILED. */
  FAIL;

  public static final String CONFIG = "verify.mismatch";
  public static final String DOC = "What the replica does when a verification (pg2lite.verify() on the source, or "
      + "the source's verify.interval.ms) finds a table different from Postgres. Every table verified is recorded in "
      + "_pg2lite.verify with its outcome, and logged: INFO on a match, WARN on a mismatch naming the table, the key "
      + "ranges that differ, the row counts and the remedy (SELECT pg2lite.resync('schema.table') on Postgres). "
      + "VerifiedAt and VerifyMismatches in the metrics. log (the default): the replica goes on applying. fail: "
      + "it stops with an error naming the table (a sink task fails at its next batch, a follower ends FAILED); "
      + "nothing it committed is lost, and it resumes from there once restarted.";

  /** The setting's values, as configs list them. */
  public static String[] names() {
    return new String[] {"log", "fail"};
  }

  /** {@code value} ({@code log} or {@code fail}, any case). */
  public static MismatchPolicy of(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT));
  }
}
