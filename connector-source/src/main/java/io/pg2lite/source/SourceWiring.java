package io.pg2lite.source;

import io.pg2lite.backfill.BackfillStream;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.metrics.SlotReading;
import io.pg2lite.source.replication.ReplicationStream;
import io.pg2lite.source.transaction.SourcePosition;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What {@link Pg2liteSourceTask} opens against Postgres and Kafka, behind one seam, so that a unit
 * test can drive {@link Pg2liteSourceTask#poll()} without servers. The task calls
 * {@link #prepare}, then {@link #replication} and {@link #backfill}, on every start-up attempt;
 * a {@link RuntimeException} that {@link io.pg2lite.connect.failure.Failures#isTransient} calls
 * transient makes it try again later. The real one is {@link PostgresKafkaWiring}.
 */
interface SourceWiring {
  /**
   * The start-up work before streaming: the change-log and heartbeat topics, then
   * {@link SourceStartup} (catalog, publication, keys, slot, lineage, the records to write first).
   *
   * @param stored the position in Connect's offsets, or null on a first start
   * @param forcedNewLineage why a new lineage must start although this one could go on, or null
   */
  SourceStartup.State prepare(SourceConfig config, SourcePosition stored, String forcedNewLineage);

  /**
   * How the task looks for replicas stranded on its change log ({@code resync.auto}): for a
   * replica version, why a new lineage is needed, or empty.
   */
  default java.util.function.Function<String, java.util.Optional<String>> strandedReplicas(SourceConfig config) {
    return version -> java.util.Optional.empty();
  }

  /**
   * The upstream replication stream, not yet started: sessions of the slot healed by one stream.
   *
   * @param storedOffset reads the source offsets Connect has stored
   * @param resumeOffset the source offset after the last complete transaction handed out
   */
  ReplicationStream replication(SourceConfig config, Supplier<Map<String, ?>> storedOffset,
      Supplier<Map<String, ?>> resumeOffset);

  /** The backfill stream resuming the backfills stored in {@code state}'s position. */
  BackfillStream backfill(SourceConfig config, SourceStartup.State state, LongSupplier clockMillis);

  /**
   * The verifications, resuming the requests stored in {@code state}'s position, or null when the
   * source does not verify (tests' wirings).
   */
  default io.pg2lite.backfill.verify.VerifyStream verify(SourceConfig config, SourceStartup.State state,
      java.util.function.Predicate<io.pg2lite.protocol.schema.QualifiedName> beingCopied, LongSupplier clockMillis) {
    return null;
  }

  /** The slot as the metrics show it; {@link SlotReading#UNKNOWN} when it cannot be read. */
  SlotReading slot(SourceConfig config);

  /**
   * Releases what the wiring keeps for the task's life (the TLS files of
   * {@link io.pg2lite.source.postgres.PostgresConnections}); called once the task's streams are closed.
   */
  default void close() {}
}
