package io.pg2lite.snapshot.s3;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Removes what publishers that died midway left in one change log's folder: data objects whose
 * manifest never came, and multipart uploads never completed nor aborted (their parts are billed
 * but listed nowhere else).
 *
 * <p>Invariant: only leftovers older than {@code age} go, and {@code age} must be longer than any
 * publish takes. A live publisher's data exists without its manifest for the moment between the
 * two PUTs, and S3 dates a multipart object by when its upload <em>began</em>, so a sweep with too
 * short an age could delete the data of a snapshot about to be published (which {@code list} then
 * skips as "data object missing": lost work, never a wrong restore).
 *
 * <p>S3Proxy 2.6.0 (transient and filesystem backends) reports the time of the listing as every
 * upload's {@code Initiated}, so there uploads are only ever swept with a zero age; on S3 the date
 * is the upload's start.
 */
final class OrphanSweeper {
  private final S3Client s3;
  private final String bucket;
  private final Duration age;

  OrphanSweeper(S3Client s3, String bucket, Duration age) {
    this.s3 = s3;
    this.bucket = bucket;
    this.age = age;
  }

  /** Sweeps {@code folder}, whose objects (by key) were just listed. */
  void sweep(String folder, Map<String, S3Object> objects) {
    Instant cutoff = Instant.now().minus(age);
    for (S3Object o : objects.values()) {
      String id = SnapshotKeys.idOf(folder, o.key(), SnapshotKeys.DATA);
      if (id != null && !objects.containsKey(folder + id + SnapshotKeys.MANIFEST)
          && !o.lastModified().isAfter(cutoff)) {
        s3.deleteObject(r -> r.bucket(bucket).key(o.key()));
      }
    }
    List<MultipartUpload> uploads = new ArrayList<>();
    s3.listMultipartUploadsPaginator(r -> r.bucket(bucket).prefix(folder)).uploads().forEach(uploads::add);
    // The cutoff is taken again after the listing: S3Proxy reports the time of the listing itself as
    // every upload's Initiated, so with a cutoff from before it even a zero age would sweep nothing.
    Instant uploadCutoff = Instant.now().minus(age);
    for (MultipartUpload u : uploads) {
      // An upload of unknown age is left alone: it may be a live publisher's.
      if (u.initiated() != null && !u.initiated().isAfter(uploadCutoff)) {
        try {
          s3.abortMultipartUpload(r -> r.bucket(bucket).key(u.key()).uploadId(u.uploadId()));
        } catch (NoSuchUploadException e) {
          // completed or aborted by its publisher, or by another sink's sweep, meanwhile
        }
      }
    }
  }
}
