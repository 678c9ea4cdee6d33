package io.pg2lite.replica.verify;

import io.pg2lite.protocol.schema.QualifiedName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log line of an outcome: INFO for a match and for a table that could not be compared (nothing
 * is known to be wrong), WARN for a mismatch, naming the table, the differing key ranges, the counts
 * and the remedy, and for a digest that did not complete.
 */
public final class VerifyLog {
  private static final Logger LOG = LoggerFactory.getLogger(VerifyLog.class);

  private VerifyLog() {}

  public static void log(VerifyOutcome o) {
    String id = o.request().id();
    switch (o.result()) {
      case MATCH -> LOG.info("Verify {}: table {} matches the source at watermark {}: {} rows compared ({} rows the "
          + "source changed after {} left out)", id, o.table(), o.watermark(), o.replicaRows(), o.request().excluded(),
          o.request().since());
      case MISMATCH -> LOG.warn("Verify {}: table {} differs from the source at watermark {}: {}. Source {} rows, "
          + "replica {} rows (rows changed after {} left out on both sides). Re-copy the table: {}", id, o.table(),
          o.watermark(), o.detail(), o.sourceRows(), o.replicaRows(), o.request().since(), remedy(o.table()));
      case NOT_COMPARABLE -> LOG.info("Verify {}: table {} was not compared at watermark {}: {}", id, o.table(),
          o.watermark(), o.detail());
      case NOT_COMPARED -> LOG.warn("Verify {}: table {} was not compared at watermark {}: {}", id, o.table(),
          o.watermark(), o.detail());
      default -> throw new IllegalStateException("unhandled outcome " + o.result());
    }
  }

  /** The statement that copies {@code table} again from Postgres (run on the source database). */
  public static String remedy(QualifiedName table) {
    return "SELECT pg2lite.resync('" + table.toString().replace("'", "''") + "')";
  }
}
