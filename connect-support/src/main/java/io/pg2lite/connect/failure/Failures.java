package io.pg2lite.connect.failure;

import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The one rule both connectors and the backfill use to tell a transient fault (retry, heal
 * without a person) from a permanent one (stop, say what to fix).
 *
 * <p>Transient:
 * <ul>
 *   <li>Postgres SQLSTATE class {@code 08} (connection exception), {@code 53300} (too many
 *       connections), {@code 57P01}–{@code 57P03} (admin/crash shutdown, cannot connect now),
 *       {@code 40001} (serialization failure), {@code 40P01} (deadlock);
 *   <li>SQLite {@code SQLITE_BUSY} and {@code SQLITE_LOCKED} (any extended code of them);
 *   <li>Kafka's and Connect's {@code RetriableException}s (Kafka's timeouts are among them);
 *   <li>a socket that could not connect, was reset or timed out.
 * </ul>
 * Everything else is permanent: a bug (a NullPointerException is never retried), bad input, a
 * missing privilege, a full disk (the sink waits for a full replica by a rule of its own, ADR 0031).
 *
 * <p>The whole cause chain is looked at, because drivers and frameworks wrap: a Postgres
 * connection loss may surface as a Debezium or Connect exception whose cause is a
 * {@code PSQLException} with SQLSTATE 08006. A permanent cause anywhere does not make a transient
 * one permanent: the first transient cause found decides.
 *
 * <p>Kafka's exception types are recognised by class name, so this class needs neither Kafka
 * nor a JDBC driver.
 */
public final class Failures {
  private static final Set<String> TRANSIENT_SQLSTATES = Set.of("53300", "57P01", "57P02", "57P03", "40001", "40P01");
  private static final Set<String> RETRIABLE_CLASSES = Set.of(
      "org.apache.kafka.common.errors.RetriableException",
      "org.apache.kafka.connect.errors.RetriableException",
      "org.apache.kafka.common.errors.DisconnectException",
      "java.net.ConnectException",
      "java.net.SocketTimeoutException",
      "java.net.NoRouteToHostException",
      "java.net.UnknownHostException",
      "java.io.EOFException");
  private static final int SQLITE_BUSY = 5;
  private static final int SQLITE_LOCKED = 6;

  private Failures() {}

  /** True when {@code t} (or any cause of it) is a fault that retrying can heal. */
  public static boolean isTransient(Throwable t) {
    return transientCause(t) != null;
  }

  /** The first cause in the chain that is transient, or null when the failure is permanent. */
  public static Throwable transientCause(Throwable t) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
      if (isTransientItself(c)) {
        return c;
      }
      if (c instanceof SQLException sql && sql.getNextException() != null && isTransientItself(sql.getNextException())) {
        return sql.getNextException();
      }
    }
    return null;
  }

  private static boolean isTransientItself(Throwable c) {
    if (c instanceof SQLException sql) {
      if (isTransientSqlState(sql.getSQLState())) {
        return true;
      }
      if (isSqliteBusy(sql)) {
        return true;
      }
    }
    if (c instanceof java.net.SocketException && !(c instanceof java.net.BindException)) {
      return true; // connection reset, broken pipe, refused
    }
    for (Class<?> k = c.getClass(); k != null; k = k.getSuperclass()) {
      if (RETRIABLE_CLASSES.contains(k.getName())) {
        return true;
      }
    }
    return false;
  }

  /** The message of the innermost cause (its class name when it has none): what a log line names. */
  public static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() != null ? t.getMessage() : t.getClass().getName();
  }

  /** Postgres' SQLSTATEs that a retry can heal (see the class comment). */
  public static boolean isTransientSqlState(String state) {
    return state != null && (state.startsWith("08") || TRANSIENT_SQLSTATES.contains(state));
  }

  /**
   * sqlite-jdbc reports the SQLite result code as the vendor error code and leaves SQLSTATE
   * empty; extended codes (SQLITE_BUSY_SNAPSHOT = 517, ...) carry the primary code in the low byte.
   */
  private static boolean isSqliteBusy(SQLException e) {
    if (e.getSQLState() != null || e.getMessage() == null || !e.getMessage().contains("SQLITE_")) {
      return false;
    }
    int primary = e.getErrorCode() & 0xff;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
  }
}
