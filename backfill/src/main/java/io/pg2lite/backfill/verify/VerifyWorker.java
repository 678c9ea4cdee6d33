package io.pg2lite.backfill.verify;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Where a verification reads tables and looks rows up: one thread of its own at low priority (the
 * read must never hold the source's poll thread), running its tasks one at a time and in order,
 * so a snapshot is closed only after the work on it ({@link #afterWork}). Without an executor
 * (tests), inline on the caller's thread.
 */
final class VerifyWorker {
  /** A piece of work that may fail. */
  interface Work {
    void run() throws Exception;
  }

  private final Executor executor;
  private final ExecutorService owned;

  private VerifyWorker(Executor executor, ExecutorService owned) {
    this.executor = executor;
    this.owned = owned;
  }

  static VerifyWorker inline() {
    return new VerifyWorker(null, null);
  }

  /** A daemon thread of minimum priority. */
  static VerifyWorker background() {
    ExecutorService e = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "pg2lite-verify");
      t.setDaemon(true);
      t.setPriority(Thread.MIN_PRIORITY);
      return t;
    });
    return new VerifyWorker(e, e);
  }

  /** On {@code executor}, which must run its tasks one at a time, in order (tests step it). */
  static VerifyWorker on(Executor executor) {
    return new VerifyWorker(executor, null);
  }

  CompletableFuture<Void> submit(Work w) {
    Runnable r = () -> {
      try {
        w.run();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    };
    if (executor == null) {
      try {
        r.run();
        return CompletableFuture.completedFuture(null);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e instanceof CompletionException c && c.getCause() != null
            ? c.getCause() : e);
      }
    }
    return CompletableFuture.runAsync(r, executor);
  }

  /** Runs {@code r} once the work submitted before it has run. */
  void afterWork(Runnable r) {
    if (executor == null) {
      r.run();
    } else {
      executor.execute(r);
    }
  }

  /** Lets the work queued run out, then ends the thread (a read under way stops at its next batch). */
  void shutdown() {
    if (owned != null) {
      owned.shutdown();
    }
  }
}
