package io.pg2lite.replica.lineage;

/**
 * What others of the sink need to hear about lineages: snapshots wait while a build runs (the
 * published replica is frozen and the build is incomplete) and retire the old lineage's
 * snapshots after the swap. Called on the thread that applies the log.
 */
public interface LineageEvents {
  /** A build started, or a restart resumed one: the published replica stays as it is until the swap. */
  default void building(String version) {}

  /** A build was given up before it committed anything (a rollback, a rebalance): the published replica goes on. */
  default void abandoned(String version) {}

  /** The build of {@code published} replaced the replica of {@code retired} at the path. */
  default void swapped(String retired, String published) {}

  /** Nobody listens. */
  LineageEvents NONE = new LineageEvents() {};
}
