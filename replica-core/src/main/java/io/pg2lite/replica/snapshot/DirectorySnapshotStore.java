package io.pg2lite.replica.snapshot;

import io.pg2lite.replica.space.ReplicaSpace;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Snapshots in a directory: local, or a mount every worker shares (NFS and the like). Layout:
 * {@code <root>/<topic>-<partition>/<id>.db} (the SQLite file) and {@code <id>.json} (its
 * manifest), where {@code id} is the zero-padded offset and a random suffix, so that two sinks
 * publishing at the same offset never collide.
 *
 * <p>Publishing writes each file under a {@code .tmp} name, forces it to disk, renames it into
 * place (an atomic rename within one directory), data first and manifest last, then forces the
 * directory. A publisher that dies midway leaves only {@code .tmp} files or data without a
 * manifest, which {@link #list} never returns and a later publish removes once they are an hour
 * old.
 */
public final class DirectorySnapshotStore implements SnapshotStore {
  private static final String DATA = ".db";
  private static final String MANIFEST = ".json";
  private static final String TEMP = ".tmp";
  private static final Duration ORPHAN_AGE = Duration.ofHours(1);
  private final Path root;

  public DirectorySnapshotStore(Path root) {
    this.root = root;
  }

  @Override
  public String describe() {
    return "directory " + root;
  }

  private Path dir(String topic, int partition) {
    return root.resolve(topic + "-" + partition);
  }

  @Override
  public SnapshotManifest publish(Path data, SnapshotManifest manifest) throws IOException {
    Path dir = Files.createDirectories(dir(manifest.topic(), manifest.partition()));
    removeOrphans(dir);
    String id = String.format("%020d-%08x", manifest.offset(), ThreadLocalRandom.current().nextInt());
    Path dataTemp = dir.resolve(id + DATA + TEMP);
    Copy copy;
    try (InputStream in = Files.newInputStream(data)) {
      copy = copyDurably(in, dataTemp);
    }
    SnapshotManifest stored = new SnapshotManifest(id, manifest.replicaVersion(), manifest.watermark(),
        manifest.topic(), manifest.partition(), manifest.offset(), manifest.seq(), copy.bytes, copy.sha256,
        manifest.createdAt());
    moveIntoPlace(dataTemp, dir.resolve(id + DATA));
    Path manifestTemp = dir.resolve(id + MANIFEST + TEMP);
    try (InputStream in = new java.io.ByteArrayInputStream(stored.toJson())) {
      copyDurably(in, manifestTemp);
    }
    moveIntoPlace(manifestTemp, dir.resolve(id + MANIFEST));
    forceDirectory(dir);
    return stored;
  }

  @Override
  public List<SnapshotManifest> list(String topic, int partition, SkipListener skipped) throws IOException {
    Path dir = dir(topic, partition);
    List<SnapshotManifest> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + MANIFEST)) {
      for (Path f : files) {
        String id = f.getFileName().toString();
        id = id.substring(0, id.length() - MANIFEST.length());
        try {
          SnapshotManifest m = SnapshotManifest.fromJson(f.toString(), Files.readAllBytes(f));
          if (!m.id().equals(id) || !m.topic().equals(topic) || m.partition() != partition) {
            skipped.skipped(f.toString(), "its manifest names another snapshot (" + m.id() + " of " + m.topic() + "-"
                + m.partition() + ")");
          } else if (!Files.exists(dir.resolve(id + DATA))) {
            skipped.skipped(f.toString(), "its data file is missing");
          } else {
            out.add(m);
          }
        } catch (CorruptSnapshotException e) {
          skipped.skipped(f.toString(), e.reason());
        } catch (NoSuchFileException e) {
          // deleted meanwhile by another sink's pruning
        }
      }
    }
    out.sort(Comparator.comparingLong(SnapshotManifest::offset).thenComparing(SnapshotManifest::createdAt)
        .reversed());
    return out;
  }

  @Override
  public void fetch(SnapshotManifest manifest, Path target) throws IOException, CorruptSnapshotException {
    Path source = dir(manifest.topic(), manifest.partition()).resolve(manifest.id() + DATA);
    Path temp = target.resolveSibling(target.getFileName() + ".restore" + TEMP);
    Copy copy;
    try (InputStream in = Files.newInputStream(source)) {
      copy = copyDurably(in, temp);
    } catch (NoSuchFileException e) {
      throw new CorruptSnapshotException(source.toString(), "its data file is gone");
    }
    if (copy.bytes != manifest.bytes() || !copy.sha256.equals(manifest.sha256())) {
      Files.deleteIfExists(temp);
      throw new CorruptSnapshotException(source.toString(), copy.bytes != manifest.bytes()
          ? "data has " + copy.bytes + " bytes, its manifest says " + manifest.bytes() + " (truncated or partial)"
          : "data's SHA-256 " + copy.sha256 + " differs from its manifest's " + manifest.sha256());
    }
    moveIntoPlace(temp, target);
  }

  @Override
  public void delete(SnapshotManifest manifest) throws IOException {
    Path dir = dir(manifest.topic(), manifest.partition());
    Files.deleteIfExists(dir.resolve(manifest.id() + MANIFEST));
    Files.deleteIfExists(dir.resolve(manifest.id() + DATA));
  }

  /** Leftovers of publishers that died midway: temporary files, and data whose manifest never came. */
  private static void removeOrphans(Path dir) throws IOException {
    Instant before = Instant.now().minus(ORPHAN_AGE);
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        boolean orphan = name.endsWith(TEMP) || (name.endsWith(DATA)
            && !Files.exists(dir.resolve(name.substring(0, name.length() - DATA.length()) + MANIFEST)));
        try {
          if (orphan && Files.getLastModifiedTime(f).toInstant().isBefore(before)) {
            Files.deleteIfExists(f);
          }
        } catch (NoSuchFileException e) {
          // removed by another sink meanwhile
        }
      }
    }
  }

  private record Copy(long bytes, String sha256) {}

  /**
   * Copies {@code in} to {@code target} (replacing it), forced to disk; returns size and SHA-256.
   * A copy that fails is deleted at once (it would hold the room a full store lacks), and the
   * failure names the file and the room left beside it (a full disk is the usual cause).
   */
  private static Copy copyDurably(InputStream in, Path target) throws IOException {
    MessageDigest sha = sha256();
    long bytes;
    try (DigestInputStream digesting = new DigestInputStream(in, sha);
        FileChannel ch = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
        OutputStream out = java.nio.channels.Channels.newOutputStream(ch)) {
      bytes = digesting.transferTo(out);
      out.flush();
      ch.force(true);
    } catch (IOException e) {
      Files.deleteIfExists(target);
      throw new IOException("copying to " + target.toAbsolutePath() + " failed (" + ReplicaSpace.mib(
          ReplicaSpace.usableBytesBeside(target)) + " free on its filesystem): " + e.getMessage(), e);
    }
    return new Copy(bytes, HexFormat.of().formatHex(sha.digest()));
  }

  private static void moveIntoPlace(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("the snapshot directory " + to.getParent() + " does not support atomic renames, which "
          + "publishing a snapshot needs", e);
    }
  }

  /** Makes the renames durable: on Linux a directory opened for reading can be forced. */
  private static void forceDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // some file systems cannot open a directory; the renames are then as durable as they make them
    }
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
