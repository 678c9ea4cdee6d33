package io.pg2lite.source.postgres;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PEM text (RFC 7468 and the older RFC 1421 form openssl still writes for encrypted PKCS#1 keys):
 * {@code -----BEGIN LABEL-----}, optional {@code Name: value} headers, base64, {@code -----END LABEL-----}.
 * Text between blocks (openssl's "Bag Attributes", comments) is ignored, as OpenSSL ignores it.
 */
final class Pem {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);

  /**
   * One block. {@code encrypted} is the RFC 1421 {@code Proc-Type: 4,ENCRYPTED} header: the
   * base64 is then a cipher text no standard structure describes.
   */
  record Block(String label, boolean encrypted, byte[] der) {}

  private Pem() {}

  /**
   * Whether a setting's value is PEM text rather than a file name: the rule a config provider's
   * output and a file name are told apart by. No file name starts with five dashes.
   */
  static boolean isPem(String value) {
    return value.stripLeading().startsWith("-----BEGIN ");
  }

  /** Whether {@code content} (a file's bytes read as text) holds a PEM block anywhere. */
  static boolean containsPem(String content) {
    return BLOCK.matcher(content).find();
  }

  /** The blocks of {@code text}, in order. Throws IllegalArgumentException on base64 that does not decode. */
  static List<Block> blocks(String text) {
    List<Block> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      StringBuilder base64 = new StringBuilder();
      boolean encrypted = false;
      for (String line : m.group(2).split("\\R")) {
        String l = line.strip();
        if (l.contains(":")) {
          encrypted |= l.replace(" ", "").equalsIgnoreCase("Proc-Type:4,ENCRYPTED");
        } else {
          base64.append(l);
        }
      }
      try {
        out.add(new Block(m.group(1), encrypted, Base64.getDecoder().decode(base64.toString())));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("the " + m.group(1) + " block is not valid base64 (" + e.getMessage() + ")");
      }
    }
    return out;
  }
}
