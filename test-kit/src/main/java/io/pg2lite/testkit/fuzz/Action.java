package io.pg2lite.testkit.fuzz;

/**
 * One step of a {@link Workload}, executed in order by the {@link WorkloadRunner}. Transactions are
 * spelled out as SQL ({@code BEGIN}, {@code SAVEPOINT}, {@code COMMIT}, {@code ROLLBACK}) on a
 * session, so the interleaving of two sessions is exactly the order of the actions.
 */
public sealed interface Action {
  /** A statement on session {@code session} (0 or 1; each session is one Postgres connection). */
  record Sql(int session, String sql) implements Action {}

  /** A restart of part of the pipeline; the workload goes on as soon as it runs again. */
  record Restart(RestartKind kind) implements Action {}

  /** Lets the pipeline work for a while before the next action. */
  record Pause(int millis) implements Action {}

  /** What a {@link Restart} restarts. */
  enum RestartKind {
    /** the source connector and its task, over the REST API */
    SOURCE,
    /** the sink connector and its task, over the REST API */
    SINK,
    /** the whole Connect worker running both: stopped, then a new worker joins the same group */
    WORKER,
    /** not a restart but a loss: the source's slot dropped under it (its walsender terminated first) */
    SLOT_LOST;

    /** The restarts proper, which the generator draws from (never {@link #SLOT_LOST}). */
    public static final java.util.List<RestartKind> RESTARTS = java.util.List.of(SOURCE, SINK, WORKER);
  }
}
