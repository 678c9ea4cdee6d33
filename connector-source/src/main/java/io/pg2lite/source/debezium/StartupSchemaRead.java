package io.pg2lite.source.debezium;

/**
 * Recognises a failure of Debezium's start-up schema read, which is a transient fault.
 *
 * <p>When its streaming starts, Debezium reads every captured table from the catalog
 * ({@code PostgresSchema.refresh}): the columns of all tables in one query, then each table's
 * primary key in another, outside any snapshot. A DDL committed between the two (a dropped or
 * added key column, found by the randomized test when a task restarted while the workload ran)
 * makes the two answers disagree and Debezium fails with "The column ... is referenced as PRIMARY
 * KEY, but a matching column is not defined". Read again, the catalog agrees with itself; nothing
 * was streamed yet, so starting Debezium again from the same stored position loses and repeats
 * nothing.
 *
 * <p>pg2lite never uses that schema for values (columns are typed by the Relation messages, ADR
 * 0006, and specs come from pg2lite's own DDL messages), so the read only has to succeed.
 */
final class StartupSchemaRead {
  private static final String SCHEMA_CLASS = "io.debezium.connector.postgresql.PostgresSchema";

  private StartupSchemaRead() {}

  /** Whether {@code failure}, or one of its causes, was thrown inside Debezium's schema refresh. */
  static boolean failed(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      for (StackTraceElement frame : t.getStackTrace()) {
        if (SCHEMA_CLASS.equals(frame.getClassName()) && "refresh".equals(frame.getMethodName())) {
          return true;
        }
      }
    }
    return false;
  }
}
