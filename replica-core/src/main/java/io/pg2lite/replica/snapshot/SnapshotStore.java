package io.pg2lite.replica.snapshot;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Where replica snapshots are kept, shared by every sink of one change log. Snapshots are grouped
 * by the change log's topic and partition; within that, a snapshot is identified by its
 * manifest's {@code id}.
 *
 * <p>Invariants every implementation keeps:
 * <ul>
 *   <li>Publishing is atomic: {@link #list} returns a snapshot only once its data and manifest
 *       are both complete and durable. The manifest is written last; a snapshot without one is
 *       not there.
 *   <li>{@link #fetch} hands over data that matches the manifest (size and SHA-256) or throws
 *       {@link CorruptSnapshotException}; it never leaves a partial file at {@code target}.
 *   <li>Several sinks may publish, list, fetch and delete at once: names do not collide (each
 *       publisher picks a fresh id), and deleting a snapshot that is already gone is not an error.
 * </ul>
 * An object store (S3, GCS, Azure Blob) meets these with two objects per snapshot, the data then
 * the manifest (a PUT is atomic; the manifest's presence publishes), a listing by prefix
 * {@code topic-partition/}, and a ranged or streaming GET verified against the manifest's checksum:
 * see docs/sink-connector.md, "Snapshots".
 */
public interface SnapshotStore {
  /**
   * Publishes {@code data} (a complete SQLite file) as a snapshot described by {@code manifest},
   * whose {@code id} the store may replace with one of its own; returns the manifest as stored.
   */
  SnapshotManifest publish(Path data, SnapshotManifest manifest) throws IOException;

  /**
   * The complete snapshots of one change log, newest (highest offset) first. A manifest that
   * cannot be read is reported to {@code skipped} and left out.
   */
  List<SnapshotManifest> list(String topic, int partition, SkipListener skipped) throws IOException;

  /** Copies a snapshot's data to {@code target}, verified against its manifest. */
  void fetch(SnapshotManifest manifest, Path target) throws IOException, CorruptSnapshotException;

  /** Removes a snapshot (manifest first, so it stops being listed before its data goes). */
  void delete(SnapshotManifest manifest) throws IOException;

  /** Where this store is, for messages. */
  String describe();

  /** Told about a snapshot that was passed over, and why. */
  @FunctionalInterface
  interface SkipListener {
    void skipped(String snapshot, String reason);
  }
}
