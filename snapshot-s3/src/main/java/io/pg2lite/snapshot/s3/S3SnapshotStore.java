package io.pg2lite.snapshot.s3;

// The one main class that imports the snapshot seam (moving to io.pg2lite.replica.snapshot, ADR 0032).
import io.pg2lite.replica.snapshot.CorruptSnapshotException;
import io.pg2lite.replica.snapshot.SnapshotManifest;
import io.pg2lite.replica.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Snapshots as objects in an S3 bucket (AWS, or any S3-compatible store through an endpoint):
 * {@code <prefix><topic>-<partition>/<id>.db} and {@code <id>.json} ({@link SnapshotKeys}).
 *
 * <p>How it keeps {@link SnapshotStore}'s invariants without renames or fsync:
 * <ul>
 *   <li>Publishing PUTs the data, then the manifest. A PUT, and a completed multipart upload, is
 *       atomic and durable once acknowledged, so the manifest's presence publishes; a publisher that
 *       dies midway leaves data without a manifest (never listed) or an incomplete multipart upload,
 *       both removed by a later publish once older than the orphan age ({@link OrphanSweeper}).
 *   <li>The manifest's size and SHA-256 are computed from the local file before it goes up, and
 *       {@code fetch} checks them on the bytes it receives ({@link VerifiedDownload}): whatever
 *       happens to the object in between (a truncated upload through a broken proxy, a bit flip, a
 *       hand edit) is refused, not restored.
 *   <li>Deleting removes the manifest first, so a snapshot stops being listed before its data goes;
 *       S3 answers a DELETE of a missing key with success, so deleting twice is not an error.
 * </ul>
 * Errors of the AWS SDK (unchecked) come out as {@link IOException}s naming the object and the
 * store, as the seam promises; the caller retries those at its next interval.
 *
 * <p>Thread safety: the S3 client is; the store keeps no other state, so several threads (and
 * several sinks sharing the bucket) may use it at once.
 */
public final class S3SnapshotStore implements SnapshotStore, AutoCloseable {
  /** Data without a manifest older than this is a dead publisher's. Longer than any upload takes. */
  public static final Duration ORPHAN_AGE_DEFAULT = Duration.ofHours(1);
  private final S3StoreSettings settings;
  private final S3Client s3;
  private final SnapshotKeys keys;
  private final ObjectUploader uploader;
  private final VerifiedDownload download;
  private final OrphanSweeper sweeper;

  /**
   * A store on its own client (closed by {@link #close}). Makes no request: call {@link #check} at
   * start-up to fail fast on a wrong bucket, endpoint or credentials.
   *
   * @throws IllegalArgumentException naming {@value S3StoreSettings#REGION_CONFIG} when no region
   *     is set for AWS and the SDK's region chain finds none
   */
  public S3SnapshotStore(S3StoreSettings settings) {
    this(settings, S3Clients.create(settings, List.of()), ORPHAN_AGE_DEFAULT);
  }

  /** For tests: a client with fault-injecting interceptors, and a shorter orphan age. */
  S3SnapshotStore(S3StoreSettings settings, S3Client s3, Duration orphanAge) {
    this.settings = settings;
    this.s3 = s3;
    this.keys = new SnapshotKeys(settings.prefix());
    this.uploader = new ObjectUploader(s3, settings.bucket(), settings.partSizeBytes());
    this.download = new VerifiedDownload(s3, settings.bucket());
    this.sweeper = new OrphanSweeper(s3, settings.bucket(), orphanAge);
  }

  /**
   * The start-up probe: fails naming the setting to fix when the endpoint cannot be reached, the
   * bucket does not exist, or the credentials are refused or may not list the prefix.
   */
  public void check() throws S3StoreCheckException {
    S3StoreProbe.check(s3, settings);
  }

  @Override
  public String describe() {
    return "s3://" + settings.bucket() + "/" + settings.prefix() + " at " + settings.location();
  }

  @Override
  public SnapshotManifest publish(Path data, SnapshotManifest manifest) throws IOException {
    String folder = keys.folder(manifest.topic(), manifest.partition());
    String id = SnapshotKeys.newId(manifest.offset());
    String dataKey = keys.data(manifest.topic(), manifest.partition(), id);
    try {
      sweeper.sweep(folder, listFolder(folder));
      FileDigest digest = FileDigest.of(data);
      SnapshotManifest stored = new SnapshotManifest(id, manifest.replicaVersion(), manifest.watermark(),
          manifest.topic(), manifest.partition(), manifest.offset(), manifest.seq(), digest.bytes(), digest.sha256(),
          manifest.createdAt());
      uploader.upload(data, digest.bytes(), dataKey);
      s3.putObject(r -> r.bucket(settings.bucket()).key(keys.manifest(manifest.topic(), manifest.partition(), id))
          .contentType("application/json"), RequestBody.fromBytes(stored.toJson()));
      return stored;
    } catch (SdkException e) {
      throw failed("publishing " + data + " as " + name(dataKey), e);
    }
  }

  @Override
  public List<SnapshotManifest> list(String topic, int partition, SkipListener skipped) throws IOException {
    String folder = keys.folder(topic, partition);
    List<SnapshotManifest> out = new ArrayList<>();
    try {
      Map<String, S3Object> objects = listFolder(folder);
      for (S3Object o : objects.values()) {
        String id = SnapshotKeys.idOf(folder, o.key(), SnapshotKeys.MANIFEST);
        if (id != null) {
          readListed(o.key(), id, topic, partition, objects, skipped).ifPresent(out::add);
        }
      }
    } catch (SdkException e) {
      throw failed("listing " + name(folder), e);
    }
    out.sort(Comparator.comparingLong(SnapshotManifest::offset).thenComparing(SnapshotManifest::createdAt)
        .reversed());
    return out;
  }

  /** One listed manifest, when it is readable, its own, and has its data beside it. */
  private Optional<SnapshotManifest> readListed(String key, String id, String topic, int partition,
      Map<String, S3Object> objects, SkipListener skipped) {
    byte[] json;
    try {
      json = s3.getObjectAsBytes(r -> r.bucket(settings.bucket()).key(key)).asByteArray();
    } catch (NoSuchKeyException e) {
      return Optional.empty(); // deleted meanwhile by another sink's pruning
    }
    try {
      SnapshotManifest m = SnapshotManifest.fromJson(name(key), json);
      if (!m.id().equals(id) || !m.topic().equals(topic) || m.partition() != partition) {
        skipped.skipped(name(key), "its manifest names another snapshot (" + m.id() + " of " + m.topic() + "-"
            + m.partition() + ")");
      } else if (!objects.containsKey(keys.data(topic, partition, id))) {
        skipped.skipped(name(key), "its data object is missing");
      } else {
        return Optional.of(m);
      }
    } catch (CorruptSnapshotException e) {
      skipped.skipped(name(key), e.reason());
    }
    return Optional.empty();
  }

  @Override
  public void fetch(SnapshotManifest manifest, Path target) throws IOException, CorruptSnapshotException {
    String key = keys.data(manifest.topic(), manifest.partition(), manifest.id());
    Optional<String> refused;
    try {
      refused = download.toFile(key, manifest.bytes(), manifest.sha256(), target);
    } catch (SdkException e) {
      throw failed("fetching " + name(key) + " to " + target, e);
    }
    if (refused.isPresent()) {
      throw new CorruptSnapshotException(name(key), refused.get());
    }
  }

  @Override
  public void delete(SnapshotManifest manifest) throws IOException {
    String manifestKey = keys.manifest(manifest.topic(), manifest.partition(), manifest.id());
    String dataKey = keys.data(manifest.topic(), manifest.partition(), manifest.id());
    try {
      s3.deleteObject(r -> r.bucket(settings.bucket()).key(manifestKey));
      s3.deleteObject(r -> r.bucket(settings.bucket()).key(dataKey));
    } catch (SdkException e) {
      throw failed("deleting " + name(manifestKey), e);
    }
  }

  @Override
  public void close() {
    s3.close();
  }

  /** The objects directly in {@code folder}, by key, in key order (oldest id first). */
  private Map<String, S3Object> listFolder(String folder) {
    Map<String, S3Object> objects = new LinkedHashMap<>();
    for (S3Object o : s3.listObjectsV2Paginator(r -> r.bucket(settings.bucket()).prefix(folder)).contents()) {
      objects.put(o.key(), o);
    }
    return objects;
  }

  private String name(String key) {
    return "s3://" + settings.bucket() + "/" + key;
  }

  private IOException failed(String what, SdkException e) {
    return new IOException(what + " at " + settings.location() + " failed: " + e.getMessage(), e);
  }
}
