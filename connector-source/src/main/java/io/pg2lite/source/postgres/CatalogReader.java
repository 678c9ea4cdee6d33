package io.pg2lite.source.postgres;

import io.pg2lite.connect.failure.Healing;
import io.pg2lite.source.schema.CatalogView;
import io.pg2lite.source.schema.PublishedSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The catalog as the source's stream reader asks it in replication-stream mode ({@link CatalogView}),
 * on a connection of its own. A transient fault (Postgres restarting, a dropped connection) is
 * retried on a new connection with the connectors' backoff, the stream waiting meanwhile: the
 * answer is needed before the change that follows can be written. A permanent fault, or one that
 * outlasts {@code retry.timeout.ms}, fails the task.
 *
 * <p>Used by the task's polling thread only; {@link #close} may come from Connect's thread, and
 * ends a wait.
 */
public final class CatalogReader implements CatalogView, AutoCloseable {
  /** Opens a connection to the source's database. */
  @FunctionalInterface
  public interface Connector {
    Connection open() throws SQLException;
  }

  /** One question to the catalog. */
  @FunctionalInterface
  private interface Query<T> {
    T ask(PostgresCatalog catalog) throws SQLException;
  }

  private final Connector connector;
  private final String publication;
  private final Healing healing;
  private Connection connection;
  private volatile boolean closed;
  private volatile Runnable checkAgain = () -> { };

  public CatalogReader(Connector connector, String publication, Healing healing) {
    this.connector = connector;
    this.publication = publication;
    this.healing = healing;
  }

  @Override
  public PublishedSchema tables(Collection<Long> oids, long newerThan) {
    return ask("reading the published tables", c -> c.tables(publication, oids, newerThan));
  }

  @Override
  public Map<Long, TypeName> types(Collection<Long> oids) {
    return ask("reading column types", c -> c.types(oids));
  }

  /** Where {@link #checkAgainSoon} goes: the task's {@link CatalogChecker}. */
  public void checkAgainWith(Runnable request) {
    checkAgain = request;
  }

  @Override
  public void checkAgainSoon() {
    checkAgain.run();
  }

  @Override
  public long schemaOid(String name) {
    return ask("reading schema " + name, c -> c.schemaOid(name));
  }

  private <T> T ask(String what, Query<T> query) {
    while (true) {
      if (closed) {
        throw new ConnectException("the source stopped while " + what);
      }
      try {
        if (connection == null) {
          connection = connector.open();
        }
        T answer = query.ask(new PostgresCatalog(connection));
        healing.succeeded();
        return answer;
      } catch (SQLException e) {
        closeConnection();
        healing.failed(new ConnectException(what + ": " + e.getMessage(), e), "asking again");
        try {
          healing.awaitAttempt();
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new ConnectException("interrupted " + what, ie);
        }
      }
    }
  }

  private void closeConnection() {
    PostgresConnections.closeQuietly(connection); // the next question opens a new one
    connection = null;
  }

  @Override
  public void close() {
    closed = true;
    closeConnection();
  }
}
