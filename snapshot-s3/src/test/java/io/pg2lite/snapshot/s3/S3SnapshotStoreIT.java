package io.pg2lite.snapshot.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.replica.snapshot.CorruptSnapshotException;
import io.pg2lite.replica.snapshot.SnapshotManifest;
import io.pg2lite.replica.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * The S3 store against a real S3 API (S3Proxy): the {@code SnapshotStore} contract (publish rule,
 * listing, verified fetch, delete), multipart uploads, and the orphan sweep. Each test has a bucket
 * of its own; objects are tampered with through a plain S3 client, as a person or a broken tool would.
 */
class S3SnapshotStoreIT {
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static final SnapshotStoreSkips NO_SKIPS = new SnapshotStoreSkips(true);
  private static S3Server server;
  @TempDir
  Path tmp;
  private String bucket;
  private S3Client raw;
  private final List<S3SnapshotStore> stores = new ArrayList<>();

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @BeforeEach
  void newBucket() {
    bucket = "snapshots-" + BUCKETS.incrementAndGet();
    server.createBucket(bucket);
    raw = S3Clients.create(server.settings(bucket).build(), List.of());
  }

  @AfterEach
  void closeClients() {
    stores.forEach(S3SnapshotStore::close);
    raw.close();
  }

  private S3SnapshotStore store(Duration orphanAge, ExecutionInterceptor... interceptors) {
    S3StoreSettings settings = server.settings(bucket).prefix("replicas").partSizeBytes(5L << 20).build();
    S3SnapshotStore store = new S3SnapshotStore(settings, S3Clients.create(settings, List.of(interceptors)),
        orphanAge);
    stores.add(store);
    return store;
  }

  private S3SnapshotStore store() {
    return store(S3SnapshotStore.ORPHAN_AGE_DEFAULT);
  }

  private static SnapshotManifest at(long offset) {
    return new SnapshotManifest(null, "4e6720", "0a", "log", 0, offset, offset, 0, null,
        Instant.parse("2026-12-01T00:00:00Z").plusSeconds(offset));
  }

  private Path data(String text) throws IOException {
    Path f = Files.createTempFile(tmp, "data", ".db");
    Files.writeString(f, text);
    return f;
  }

  private List<String> keys() {
    List<String> keys = new ArrayList<>();
    raw.listObjectsV2Paginator(r -> r.bucket(bucket)).contents().forEach(o -> keys.add(o.key()));
    return keys;
  }

  private void put(String key, String text) {
    raw.putObject(r -> r.bucket(bucket).key(key), RequestBody.fromString(text));
  }

  @Test
  void publishedSnapshotsAreListedNewestFirstAndFetchedVerified() throws Exception {
    S3RequestLog log = new S3RequestLog();
    S3SnapshotStore store = store(S3SnapshotStore.ORPHAN_AGE_DEFAULT, log);
    SnapshotManifest a = store.publish(data("first"), at(10));
    assertEquals(List.of("PutObject replicas/log-0/" + a.id() + ".db", "PutObject replicas/log-0/" + a.id() + ".json"),
        log.of("PutObject"), "data first, the manifest last: its presence publishes");
    SnapshotManifest b = store.publish(data("second!"), at(20));
    assertEquals(7, b.bytes());
    assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest("second!".getBytes(
        StandardCharsets.UTF_8))), b.sha256());
    assertTrue(b.id().matches("00000000000000000020-[0-9a-f]{8}"), b.id());
    assertEquals(List.of("replicas/log-0/" + a.id() + ".db", "replicas/log-0/" + a.id() + ".json",
        "replicas/log-0/" + b.id() + ".db", "replicas/log-0/" + b.id() + ".json"), keys());
    assertEquals(List.of(b, a), store.list("log", 0, NO_SKIPS));
    assertEquals(List.of(), store.list("log", 1, NO_SKIPS), "another partition's snapshots are its own");
    Path target = tmp.resolve("restored.db");
    store.fetch(b, target);
    assertEquals("second!", Files.readString(target));
    store.fetch(a, target);
    assertEquals("first", Files.readString(target), "a fetch replaces what is at the target");
    assertFalse(Files.exists(tmp.resolve("restored.db" + VerifiedDownload.TEMP_SUFFIX)));
  }

  @Test
  void listingIsNewestFirstWhateverThePublishingOrder() throws Exception {
    S3SnapshotStore store = store();
    SnapshotManifest thirty = store.publish(data("30"), at(30));
    SnapshotManifest five = store.publish(data("5"), at(5));
    SnapshotManifest twenty = store.publish(data("20"), at(20));
    SnapshotManifest ten = store.publish(data("10"), at(10));
    assertEquals(List.of(thirty, twenty, ten, five), store.list("log", 0, NO_SKIPS));
    SnapshotManifest other = store.publish(data("log-10"), new SnapshotManifest(null, "4e6720", "0a", "log", 10, 99,
        null, 0, null, Instant.EPOCH));
    assertEquals(List.of(other), store.list("log", 10, NO_SKIPS));
    assertEquals(List.of(), store.list("log", 1, NO_SKIPS), "log-1/ does not list log-10/");
  }

  @Test
  void aLargeSnapshotGoesUpInPartsAndComesBackWhole() throws Exception {
    S3RequestLog log = new S3RequestLog();
    S3SnapshotStore store = store(S3SnapshotStore.ORPHAN_AGE_DEFAULT, log);
    byte[] bytes = new byte[12_000_000];
    new Random(7).nextBytes(bytes);
    Path big = tmp.resolve("big.db");
    Files.write(big, bytes);
    SnapshotManifest m = store.publish(big, at(40));
    String dataKey = "replicas/log-0/" + m.id() + ".db";
    assertEquals(List.of("CreateMultipartUpload " + dataKey, "UploadPart " + dataKey, "UploadPart " + dataKey,
        "UploadPart " + dataKey, "CompleteMultipartUpload " + dataKey, "PutObject replicas/log-0/" + m.id() + ".json"),
        log.all().subList(log.all().indexOf("CreateMultipartUpload " + dataKey), log.all().size()),
        "three parts of 5 MiB at most, then the manifest");
    assertEquals(12_000_000, m.bytes());
    assertEquals(FileDigest.of(big).sha256(), m.sha256());
    Path target = tmp.resolve("restored.db");
    store.fetch(m, target);
    assertArrayEquals(bytes, Files.readAllBytes(target));
  }

  @Test
  void aFailedMultipartUploadIsAbortedAndPublishesNothing() throws Exception {
    S3SnapshotStore store = store(S3SnapshotStore.ORPHAN_AGE_DEFAULT, new ExecutionInterceptor() {
      @Override
      public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        SdkRequest r = context.request();
        if (r instanceof UploadPartRequest part && part.partNumber() >= 2) {
          throw SdkClientException.create("injected: connection lost during part " + part.partNumber());
        }
      }
    });
    Path big = tmp.resolve("big.db");
    Files.write(big, new byte[11 << 20]);
    IOException e = assertThrows(IOException.class, () -> store.publish(big, at(50)));
    assertTrue(e.getMessage().contains("injected") && e.getMessage().contains("s3://" + bucket + "/replicas/log-0/"),
        e.getMessage());
    assertEquals(List.of(), raw.listMultipartUploads(r -> r.bucket(bucket)).uploads(), "the upload was aborted");
    assertEquals(List.of(), keys());
    assertEquals(List.of(), store.list("log", 0, NO_SKIPS));
  }

  @Test
  void anAlteredDataObjectIsRefusedAndNothingIsLeftAtTheTarget() throws Exception {
    S3SnapshotStore store = store();
    SnapshotManifest m = store.publish(data("abcdefghij"), at(10));
    String key = "replicas/log-0/" + m.id() + ".db";
    put(key, "abcdefghiJ");
    Path target = tmp.resolve("restored.db");
    CorruptSnapshotException e = assertThrows(CorruptSnapshotException.class, () -> store.fetch(m, target));
    assertTrue(e.getMessage().contains("s3://" + bucket + "/" + key) && e.getMessage().contains("SHA-256"),
        e.getMessage());
    assertFalse(Files.exists(target));
    assertFalse(Files.exists(tmp.resolve("restored.db" + VerifiedDownload.TEMP_SUFFIX)));
  }

  @Test
  void aTruncatedDataObjectIsRefusedAndAnExistingTargetIsKept() throws Exception {
    S3SnapshotStore store = store();
    SnapshotManifest m = store.publish(data("0123456789"), at(10));
    String key = "replicas/log-0/" + m.id() + ".db";
    put(key, "01234");
    Path target = tmp.resolve("restored.db");
    Files.writeString(target, "what was there");
    CorruptSnapshotException e = assertThrows(CorruptSnapshotException.class, () -> store.fetch(m, target));
    assertTrue(e.getMessage().contains("s3://" + bucket + "/" + key)
        && e.getMessage().contains("5 bytes, its manifest says 10"), e.getMessage());
    assertEquals("what was there", Files.readString(target));
    assertFalse(Files.exists(tmp.resolve("restored.db" + VerifiedDownload.TEMP_SUFFIX)));
    raw.deleteObject(r -> r.bucket(bucket).key(key));
    CorruptSnapshotException gone = assertThrows(CorruptSnapshotException.class, () -> store.fetch(m, target));
    assertTrue(gone.getMessage().contains("gone"), gone.getMessage());
  }

  @Test
  void unreadableManifestsAndManifestsWithoutDataAreSkippedByName() throws Exception {
    S3SnapshotStore store = store();
    SnapshotManifest good = store.publish(data("good"), at(30));
    put("replicas/log-0/00000000000000000050-00000002.db", "x");
    put("replicas/log-0/00000000000000000050-00000002.json", "{\"format\":1,\"id\":");
    SnapshotManifest sixty = new SnapshotManifest("00000000000000000060-00000003", "4e6720", "0a", "log", 0, 60, null,
        1, "ab", Instant.EPOCH);
    put("replicas/log-0/00000000000000000060-00000003.json", new String(sixty.toJson(), StandardCharsets.UTF_8));
    put("replicas/log-0/00000000000000000070-00000004.json", new String(sixty.toJson(), StandardCharsets.UTF_8));
    put("replicas/log-0/00000000000000000070-00000004.db", "y");
    SnapshotStoreSkips skips = new SnapshotStoreSkips(false);
    assertEquals(List.of(good), store.list("log", 0, skips));
    String dir = "s3://" + bucket + "/replicas/log-0/";
    assertEquals(List.of(
        dir + "00000000000000000050-00000002.json: manifest is not valid JSON",
        dir + "00000000000000000060-00000003.json: its data object is missing",
        dir + "00000000000000000070-00000004.json: its manifest names another snapshot"), skips.prefixes(),
        skips.all().toString());
  }

  @Test
  void dataWithoutAManifestIsNeverListedAndIsSweptOnceOld() throws Exception {
    S3SnapshotStore patient = store();
    SnapshotManifest kept = patient.publish(data("kept"), at(10));
    String orphan = "replicas/log-0/00000000000000000020-0000abcd.db";
    put(orphan, "its publisher died before the manifest");
    String unfinished = "replicas/log-0/00000000000000000030-0000beef.db";
    String upload = raw.createMultipartUpload(r -> r.bucket(bucket).key(unfinished)).uploadId();
    assertEquals(List.of(kept), patient.list("log", 0, NO_SKIPS));
    SnapshotManifest second = patient.publish(data("second"), at(40));
    assertTrue(keys().contains(orphan), "younger than an hour: kept");
    assertEquals(1, raw.listMultipartUploads(r -> r.bucket(bucket)).uploads().size());

    S3SnapshotStore eager = store(Duration.ZERO);
    SnapshotManifest third = eager.publish(data("third"), at(50));
    assertFalse(keys().contains(orphan), keys().toString());
    assertEquals(List.of(), raw.listMultipartUploads(r -> r.bucket(bucket)).uploads(), "aborted: " + upload);
    assertEquals(List.of(third, second, kept), eager.list("log", 0, NO_SKIPS), "published snapshots are no orphans");
    Path target = tmp.resolve("restored.db");
    eager.fetch(kept, target);
    assertEquals("kept", Files.readString(target));
  }

  @Test
  void deletingRemovesBothObjectsAndIsIdempotent() throws Exception {
    S3RequestLog log = new S3RequestLog();
    S3SnapshotStore store = store(S3SnapshotStore.ORPHAN_AGE_DEFAULT, log);
    SnapshotManifest a = store.publish(data("a"), at(1));
    SnapshotManifest b = store.publish(data("b"), at(2));
    store.delete(b);
    assertEquals(List.of("DeleteObject replicas/log-0/" + b.id() + ".json", "DeleteObject replicas/log-0/" + b.id()
        + ".db"), log.of("DeleteObject"), "the manifest goes first, so the snapshot stops being listed first");
    assertEquals(List.of(a), store.list("log", 0, NO_SKIPS));
    assertEquals(List.of("replicas/log-0/" + a.id() + ".db", "replicas/log-0/" + a.id() + ".json"), keys());
    store.delete(b);
    store.delete(at(3).withId("00000000000000000003-00000000"));
    raw.deleteObject(r -> r.bucket(bucket).key("replicas/log-0/" + a.id() + ".json"));
    store.delete(a);
    assertEquals(List.of(), keys(), "data whose manifest is gone is deleted too");
  }

  @Test
  void describeNamesBucketPrefixAndEndpoint() {
    assertEquals("s3://" + bucket + "/replicas/ at " + server.endpoint(), store().describe());
  }

  /** Records skipped snapshots; fails at once when none are expected. */
  private record SnapshotStoreSkips(boolean noneExpected, List<String> all)
      implements SnapshotStore.SkipListener {
    SnapshotStoreSkips(boolean noneExpected) {
      this(noneExpected, new ArrayList<>());
    }

    @Override
    public void skipped(String snapshot, String reason) {
      if (noneExpected) {
        throw new AssertionError("skipped " + snapshot + ": " + reason);
      }
      all.add(snapshot + ": " + reason);
    }

    /** Each skip cut after its reason's first words, sorted: stable across parser messages. */
    List<String> prefixes() {
      return all.stream().map(s -> s.replaceAll("(?s)(: manifest is not valid JSON|: its data object is missing"
          + "|: its manifest names another snapshot).*", "$1")).sorted().toList();
    }
  }
}
