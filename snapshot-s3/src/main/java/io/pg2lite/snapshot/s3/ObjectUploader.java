package io.pg2lite.snapshot.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * Puts one local file into one object: a single PUT up to the part size, a multipart upload above
 * it. Either way the object appears whole or not at all (S3 shows a multipart object only once it
 * is completed), which is what lets the manifest, written after it, publish the snapshot.
 *
 * <p>Invariant: a multipart upload that fails is aborted, so its parts do not linger (S3 bills them
 * and shows them to no listing of objects). An abort that fails too is left to the orphan sweep of
 * a later publish ({@link OrphanSweeper}).
 */
final class ObjectUploader {
  static final String OCTET_STREAM = "application/octet-stream";
  /** S3 numbers parts 1 to 10,000. */
  static final int MAX_PARTS = 10_000;
  private final S3Client s3;
  private final String bucket;
  private final long partSize;

  ObjectUploader(S3Client s3, String bucket, long partSize) {
    this.s3 = s3;
    this.bucket = bucket;
    this.partSize = partSize;
  }

  /** Uploads {@code size} bytes of {@code file} as {@code key}. */
  void upload(Path file, long size, String key) throws IOException {
    if (size <= partSize) {
      s3.putObject(r -> r.bucket(bucket).key(key).contentType(OCTET_STREAM), RequestBody.fromFile(file));
    } else {
      uploadInParts(file, size, key);
    }
  }

  private void uploadInParts(Path file, long size, String key) throws IOException {
    long parts = (size + partSize - 1) / partSize;
    if (parts > MAX_PARTS) {
      throw new IOException(S3StoreSettings.PART_SIZE_BYTES_CONFIG + ": " + file + " (" + size + " bytes) would need "
          + parts + " parts of " + partSize + " bytes; S3 allows " + MAX_PARTS + ": raise the part size");
    }
    String uploadId = s3.createMultipartUpload(r -> r.bucket(bucket).key(key).contentType(OCTET_STREAM)).uploadId();
    try {
      List<CompletedPart> done = new ArrayList<>();
      for (int number = 1; number <= parts; number++) {
        done.add(uploadPart(file, size, key, uploadId, number));
      }
      s3.completeMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId)
          .multipartUpload(m -> m.parts(done)));
    } catch (RuntimeException e) {
      abort(key, uploadId, e);
      throw e;
    }
  }

  private CompletedPart uploadPart(Path file, long size, String key, String uploadId, int number) {
    long offset = (number - 1) * partSize;
    long length = Math.min(partSize, size - offset);
    RequestBody body = RequestBody.fromContentProvider(() -> {
      try {
        return FileSlice.open(file, offset, length);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }, length, OCTET_STREAM);
    UploadPartResponse r = s3.uploadPart(p -> p.bucket(bucket).key(key).uploadId(uploadId).partNumber(number)
        .contentLength(length), body);
    return CompletedPart.builder().partNumber(number).eTag(r.eTag()).build();
  }

  private void abort(String key, String uploadId, RuntimeException cause) {
    try {
      s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId));
    } catch (SdkException e) {
      cause.addSuppressed(e);
    }
  }
}
