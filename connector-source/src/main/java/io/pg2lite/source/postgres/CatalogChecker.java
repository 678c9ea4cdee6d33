package io.pg2lite.source.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes catalog checks into the WAL every {@code schema.check.interval.ms} (replication-stream
 * mode, ADR 0027): the schema changes that Relation messages never carry (a table added to the
 * publication or taken out of it, indexes, NOT NULL) or carry only before a table's next change
 * reach the change log through them. A check is written when the published schema differs from
 * the one the last check wrote, once at start (for what changed while the source was stopped),
 * and every {@link #REFRESH_MS} whatever changed. The published schema is read only when the
 * catalog's fingerprint ({@link PostgresCatalog#catalogFingerprint}, a tenth of the cost) moved,
 * so a quiet catalog costs one small read per interval and a message every ten minutes.
 *
 * <p>Runs on a thread of its own, on a connection of its own: the stream never waits for it. A
 * failed check (Postgres restarting) is logged and tried again at the next interval; nothing is
 * lost meanwhile, only later.
 */
public final class CatalogChecker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogChecker.class);
  /** Checks failing this long log a WARN rather than INFO. */
  private static final long ROUTINE_MS = 30_000;
  /**
   * A check is written at least this often even when nothing changed. The tracker compares its
   * tables' 32-bit xids with a check's snapshot modulo 2^32, which holds within 2^31 transactions
   * (twelve hours at 50,000 a second): a check that sees an xid clears it, so none grows that old.
   */
  static final long REFRESH_MS = 10 * 60_000;

  private final CatalogReader.Connector connector;
  private final String publication;
  private final ScheduledExecutorService thread;
  private Connection connection;
  private String lastWritten;
  private long lastWrittenAt;
  /** The catalog's fingerprint before the last check read it: while it stays, nothing changed. */
  private String lastFingerprint;
  /** Set by {@link #requestCheck} (the task's thread): the next check is written whatever changed. */
  private volatile boolean requested;
  private volatile boolean closed;
  private long failingSince = -1;
  private volatile long lastCompletedAt = -1;

  private CatalogChecker(CatalogReader.Connector connector, String publication, String slot) {
    this.connector = connector;
    this.publication = publication;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "pg2lite-catalog-check-" + slot);
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts checking at once, then every {@code intervalMs}. */
  public static CatalogChecker start(CatalogReader.Connector connector, String publication, String slot,
      long intervalMs) {
    CatalogChecker checker = new CatalogChecker(connector, publication, slot);
    checker.thread.scheduleWithFixedDelay(checker::check, 0, intervalMs, TimeUnit.MILLISECONDS);
    return checker;
  }

  /**
   * When the last check that completed began (epoch ms), -1 before the first: a check that began
   * after a DDL committed saw it, and is in the WAL after it when it reported it. (When it ended
   * says nothing: a check that began before the DDL may end after it, without it.)
   */
  public long lastCompletedAt() {
    return lastCompletedAt;
  }

  /** The next check is written even if the catalog's fingerprint did not move. */
  public void requestCheck() {
    requested = true;
  }

  private void check() {
    long now = System.currentTimeMillis();
    if (closed) {
      return;
    }
    try {
      if (connection == null) {
        connection = connector.open();
        if (closed) { // close() ran while it opened: it could not close this one
          closeConnection();
          return;
        }
      }
      boolean due = requested || now - lastWrittenAt >= REFRESH_MS;
      requested = false;
      PostgresCatalog catalog = new PostgresCatalog(connection);
      // Read before the check's snapshot: a change after it shows in the next fingerprint.
      String fingerprint = catalog.catalogFingerprint();
      if (!due && fingerprint.equals(lastFingerprint)) {
        lastCompletedAt = now;
        return;
      }
      PostgresCatalog.CatalogCheckWrite write = catalog.writeCatalogCheck(publication, due ? null : lastWritten);
      lastWritten = write.schema();
      lastFingerprint = fingerprint;
      if (write.written()) {
        lastWrittenAt = now;
      }
      if (failingSince >= 0) {
        LOG.info("Catalog checks of publication {} run again", publication);
        failingSince = -1;
      }
      lastCompletedAt = now;
    } catch (SQLException | RuntimeException e) {
      closeConnection();
      if (failingSince < 0) {
        failingSince = now;
      }
      if (now - failingSince < ROUTINE_MS) {
        LOG.info("Catalog check of publication {} failed ({}); trying again at the next interval", publication,
            e.getMessage());
      } else {
        LOG.warn("Catalog checks of publication {} have failed for {} s ({}): schema changes that no row change "
            + "follows reach the replica only once they run again", publication, (now - failingSince) / 1000,
            e.getMessage(), e);
      }
    }
  }

  private void closeConnection() {
    PostgresConnections.closeQuietly(connection); // the next check opens a new one
    connection = null;
  }

  @Override
  public void close() {
    closed = true;
    thread.shutdownNow();
    try {
      thread.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeConnection();
  }
}
