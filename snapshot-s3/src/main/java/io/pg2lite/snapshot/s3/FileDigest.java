package io.pg2lite.snapshot.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The size and SHA-256 (lower-case hex) of some bytes: what a manifest promises about its data. */
record FileDigest(long bytes, String sha256) {
  /** Reads {@code file} once. */
  static FileDigest of(Path file) throws IOException {
    MessageDigest sha = newSha256();
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), sha)) {
      long bytes = in.transferTo(OutputStream.nullOutputStream());
      return new FileDigest(bytes, hex(sha));
    }
  }

  static String hex(MessageDigest finished) {
    return HexFormat.of().formatHex(finished.digest());
  }

  static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
