package io.pg2lite.snapshot.s3;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The store's object names: {@code <prefix><topic>-<partition>/<id>.db} (the SQLite file) and
 * {@code <id>.json} (its manifest), the directory store's layout with the prefix as its root.
 *
 * <p>Invariants: a change log's folder ends in {@code /}, so listing {@code log-1/} never returns
 * the snapshots of {@code log-10}; an id is the offset zero-padded to 20 digits and a random
 * 32-bit suffix, so ids sort by offset as text and two publishers at one offset never collide.
 */
final class SnapshotKeys {
  static final String DATA = ".db";
  static final String MANIFEST = ".json";
  private final String prefix;

  SnapshotKeys(String prefix) {
    this.prefix = prefix;
  }

  static String newId(long offset) {
    return String.format("%020d-%08x", offset, ThreadLocalRandom.current().nextInt());
  }

  /** The folder of one change log's snapshots, ending in {@code /}. */
  String folder(String topic, int partition) {
    return prefix + topic + "-" + partition + "/";
  }

  String data(String topic, int partition, String id) {
    return folder(topic, partition) + id + DATA;
  }

  String manifest(String topic, int partition, String id) {
    return folder(topic, partition) + id + MANIFEST;
  }

  /** The id in {@code key} when it is a direct child of {@code folder} ending in {@code suffix}, else null. */
  static String idOf(String folder, String key, String suffix) {
    if (!key.startsWith(folder) || !key.endsWith(suffix)) {
      return null;
    }
    String id = key.substring(folder.length(), key.length() - suffix.length());
    return id.isEmpty() || id.contains("/") ? null : id;
  }
}
