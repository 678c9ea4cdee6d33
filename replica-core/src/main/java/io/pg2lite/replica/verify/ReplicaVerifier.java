package io.pg2lite.replica.verify;

import io.pg2lite.protocol.message.Verify;
import io.pg2lite.replica.file.ReplicaFile;
import io.pg2lite.replica.file.StateTable;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computes the replica's digests for the verify messages of a committed upstream transaction, at
 * exactly its position, beside the apply loop.
 *
 * <p>Ordering, the whole point: {@link #verifyAt} runs on the applying thread right after the
 * SQLite commit of the verify transaction and before the next record is applied. It opens a
 * connection of its own, {@code BEGIN}s and reads the state row: in WAL mode that first read pins
 * the reader's snapshot at the commit just made (and checks it is that one), whatever the applier
 * commits afterwards. Only this is synchronous (a few milliseconds); the digests run on one daemon
 * thread, one request after the other, each in its own pinned snapshot. A WAL reader never blocks
 * the writer; it only keeps the WAL from being reset past its snapshot until it ends.
 *
 * <p>Without WAL (journal mode DELETE or TRUNCATE) a reader holding a snapshot would block every
 * commit of the applier, so there the digests run on the applying thread, at once: the apply loop
 * waits for them, but the position is exact all the same.
 *
 * <p>Outcomes are written by the verifier, through its own connection, once its read transaction
 * has ended (a WAL connection cannot write from a snapshot older than the file's): each in a short
 * write transaction, waiting up to the busy timeout for the applier's. Writing through the applier
 * instead would tie an outcome to whatever upstream transaction comes next (none may come for
 * hours, and a rollback of it would lose the outcome). An outcome that cannot be written (the
 * replica busy past the timeout) is logged and leaves its row pending: the next start records it
 * as not compared, which is then true.
 *
 * <p>{@link #close} stops a digest under way (within {@link ReplicaDigests}'s interruption check),
 * closes every reader, and leaves those rows pending likewise.
 */
public final class ReplicaVerifier implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaVerifier.class);
  /** How long {@link #close} waits for the digest under way to notice it is stopped. */
  private static final long CLOSE_WAIT_MS = 5_000;

  private final Path file;
  private final boolean wal;
  private final int busyTimeoutMs;
  private final VerifyListener listener;
  private final BlockingQueue<Job> queue = new LinkedBlockingQueue<>();
  private Thread thread;
  private volatile boolean closed;

  /**
   * @param file the replica file as its writer opened it (the file itself, not a link a swap may move)
   * @param wal whether the replica is in WAL mode
   */
  public ReplicaVerifier(Path file, boolean wal, int busyTimeoutMs, VerifyListener listener) {
    this.file = file;
    this.wal = wal;
    this.busyTimeoutMs = busyTimeoutMs;
    this.listener = listener;
  }

  /**
   * Verifies {@code verifies}, which the transaction committed at {@code watermark} carried; call
   * right after the SQLite commit that made it durable, before the next record is applied. Never
   * throws: a reader that cannot be opened makes each table's outcome "not compared"; after
   * {@link #close} the rows stay pending.
   */
  public void verifyAt(String watermark, List<Verify> verifies) {
    if (closed) {
      LOG.warn("Verify at watermark {} of {}: the replica is closing (a swap), its tables stay pending and are "
          + "recorded as not compared when it opens again", watermark, file);
      return;
    }
    Job job = new Job(watermark, List.copyOf(verifies));
    job.pin();
    if (!wal) {
      job.run();
      return;
    }
    if (thread == null) {
      thread = new Thread(this::work, "pg2lite-verify-" + file.getFileName());
      thread.setDaemon(true);
      thread.start();
    }
    queue.add(job);
  }

  private void work() {
    try {
      while (!closed) {
        queue.take().run();
      }
    } catch (InterruptedException e) {
      // closed
    }
  }

  /** Stops the digest under way, if any, and closes every reader; their rows stay pending. */
  @Override
  public void close() {
    closed = true;
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(CLOSE_WAIT_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (thread.isAlive()) {
        LOG.warn("The digest of {} did not stop within {} ms; its reader is left to end with it", file,
            CLOSE_WAIT_MS);
      }
    }
    for (Job left; (left = queue.poll()) != null; ) {
      left.closeReader();
    }
  }

  /** One verify transaction's tables, with the reader pinned at its position. */
  private final class Job {
    private final String watermark;
    private final List<Verify> verifies;
    private Connection reader;
    /** Why the reader could not be pinned at {@link #watermark}; null once it is. */
    private String unpinned;

    Job(String watermark, List<Verify> verifies) {
      this.watermark = watermark;
      this.verifies = verifies;
    }

    void pin() {
      try {
        reader = ReplicaFile.connect(file, busyTimeoutMs, false);
        try (Statement s = reader.createStatement()) {
          s.execute("BEGIN");
        }
        String at = StateTable.read(reader).watermark(); // the first read: the snapshot is taken here
        if (!watermark.equals(at)) {
          unpinned = "the replica was at watermark " + at + " when its reader opened, not at the verify's";
        }
      } catch (SQLException e) {
        unpinned = "cannot open a reader on " + file + ": " + e.getMessage();
      }
      if (unpinned != null) {
        LOG.warn("Verify at watermark {} of {}: {}", watermark, file, unpinned);
      }
    }

    void run() {
      try {
        List<VerifyOutcome> outcomes = new ArrayList<>();
        for (Verify v : verifies) {
          outcomes.add(unpinned != null ? VerifyOutcome.notCompared(v, watermark, unpinned) : digest(v));
        }
        endRead();
        for (VerifyOutcome o : outcomes) {
          record(o);
          tell(o);
        }
      } catch (InterruptedException e) {
        LOG.info("Verify at watermark {} of {} stopped with the replica: its tables stay pending, and are recorded as "
            + "not compared when the replica opens again", watermark, file);
        Thread.currentThread().interrupt();
      } finally {
        closeReader();
      }
    }

    private VerifyOutcome digest(Verify v) throws InterruptedException {
      try {
        return TableVerification.verify(reader, v, watermark);
      } catch (SQLException | RuntimeException e) {
        LOG.warn("Verify {} of table {} at watermark {} failed: {}", v.id(), v.relation().table(), watermark,
            e.toString(), e);
        return VerifyOutcome.notCompared(v, watermark, "the digest failed: " + e.getMessage());
      }
    }

    private void endRead() {
      if (reader == null) {
        return;
      }
      try (Statement s = reader.createStatement()) {
        s.execute("COMMIT");
      } catch (SQLException e) {
        LOG.debug("Ending the verifier's read transaction", e);
      }
    }

    private void record(VerifyOutcome o) {
      if (reader == null) {
        return; // no connection: the row stays pending, and the next start says not compared
      }
      try {
        try (Statement s = reader.createStatement()) {
          s.execute("BEGIN IMMEDIATE");
        }
        VerifyRows.record(reader, o, Instant.now());
        try (Statement s = reader.createStatement()) {
          s.execute("COMMIT");
        }
      } catch (SQLException e) {
        LOG.warn("Verify {} of table {} at watermark {}: cannot record the outcome ({}) in {}: {}", o.request().id(),
            o.table(), watermark, o.result().stored, file, e.getMessage());
        try (Statement s = reader.createStatement()) {
          s.execute("ROLLBACK");
        } catch (SQLException ignored) {
          // no transaction was open
        }
      }
    }

    private void tell(VerifyOutcome o) {
      try {
        listener.verified(o);
      } catch (RuntimeException e) {
        LOG.warn("A verify listener failed on the outcome of table {}: {}", o.table(), e.toString(), e);
      }
    }

    void closeReader() {
      if (reader != null) {
        try {
          reader.close();
        } catch (SQLException e) {
          LOG.debug("Closing the verifier's reader", e);
        }
        reader = null;
      }
    }
  }
}
