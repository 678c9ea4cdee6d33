package io.pg2lite.snapshot.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.Optional;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Streams one object into a local file while computing its size and SHA-256, and keeps the file
 * only when both are the expected ones.
 *
 * <p>Invariant: {@code target} is either untouched or holds exactly the expected bytes. The bytes
 * go to a temporary file beside it (same directory, so the final rename is atomic), forced to disk
 * before the rename; on a mismatch or any failure the temporary file is deleted before returning.
 * Nothing is buffered in memory beyond one copy buffer, whatever the snapshot's size.
 */
final class VerifiedDownload {
  static final String TEMP_SUFFIX = ".restore.tmp";
  private final S3Client s3;
  private final String bucket;

  VerifiedDownload(S3Client s3, String bucket) {
    this.s3 = s3;
    this.bucket = bucket;
  }

  /**
   * Downloads {@code key} to {@code target}; returns why it was refused (missing, or another size
   * or checksum than expected), or empty when {@code target} now holds the verified data.
   */
  Optional<String> toFile(String key, long bytes, String sha256, Path target) throws IOException {
    Path temp = target.resolveSibling(target.getFileName() + TEMP_SUFFIX);
    ResponseInputStream<GetObjectResponse> in;
    try {
      in = s3.getObject(r -> r.bucket(bucket).key(key));
    } catch (NoSuchKeyException e) {
      return Optional.of("its data object is gone");
    }
    try (in) {
      Long length = in.response().contentLength();
      if (length != null && length != bytes) {
        in.abort(); // no point reading gigabytes we already know to refuse
        return Optional.of(sizeMismatch(length, bytes));
      }
      FileDigest copy = copyDurably(in, temp);
      if (copy.bytes() != bytes || !copy.sha256().equals(sha256)) {
        Files.deleteIfExists(temp);
        return Optional.of(copy.bytes() != bytes ? sizeMismatch(copy.bytes(), bytes)
            : "data's SHA-256 " + copy.sha256() + " differs from its manifest's " + sha256);
      }
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    return Optional.empty();
  }

  private static String sizeMismatch(long actual, long expected) {
    return "data has " + actual + " bytes, its manifest says " + expected + " (truncated or partial)";
  }

  private static FileDigest copyDurably(InputStream in, Path target) throws IOException {
    MessageDigest sha = FileDigest.newSha256();
    try (DigestInputStream digesting = new DigestInputStream(in, sha);
        FileChannel ch = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
        OutputStream out = Channels.newOutputStream(ch)) {
      long bytes = digesting.transferTo(out);
      out.flush();
      ch.force(true);
      return new FileDigest(bytes, FileDigest.hex(sha));
    } catch (IOException e) {
      throw new IOException("downloading to " + target.toAbsolutePath() + " failed (" + freeMiB(target)
          + " MiB free on its filesystem): " + e.getMessage(), e);
    }
  }

  private static long freeMiB(Path file) {
    try {
      return Files.getFileStore(file.toAbsolutePath().getParent()).getUsableSpace() >> 20;
    } catch (IOException e) {
      return -1;
    }
  }
}
