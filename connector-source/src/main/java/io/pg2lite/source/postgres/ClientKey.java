package io.pg2lite.source.postgres;

import io.pg2lite.source.config.ConfigProblemException;
import io.pg2lite.source.config.SourceConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PBEParameterSpec;

/**
 * The client's private key ({@code database.sslkey}) in the form pgjdbc's default SSL factory
 * reads: PKCS#8 DER, plain or encrypted (LibPQFactory's LazyKeyManager, pgjdbc 42.7). That
 * factory reads no PEM, and of encrypted keys only those whose algorithm name is itself a JDK
 * cipher: not PBES2, which is what {@code openssl pkcs8 -topk8} writes by default.
 *
 * <p>Invariant: a key that was encrypted is never handed on in the clear. One pgjdbc could not
 * decrypt is decrypted here with {@code database.sslpassword} and encrypted again, under the same
 * password, with {@value #REENCRYPTION}, which pgjdbc can decrypt; the plain key exists only in
 * memory. (That scheme is older than PBES2; it guards a file that is private to the worker's
 * user and deleted when the task stops, and is chosen because it is the one pgjdbc reads.)
 *
 * <p>The key is also checked against the certificate's public key, so a key of another
 * certificate fails here, naming the setting, rather than as a handshake alert.
 */
final class ClientKey {
  static final String REENCRYPTION = "PBEWithSHA1AndDESede";
  private static final int ITERATIONS = 10_000;
  private static final SecureRandom RANDOM = new SecureRandom();
  /** AlgorithmIdentifier of rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters, DER. */
  private static final byte[] RSA_ALGORITHM = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86,
      (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};

  /**
   * The key for pgjdbc. {@code asIs}: the input already is this (a plain PKCS#8 DER file), so
   * pgjdbc may read the operator's file rather than a copy.
   */
  record ForPgjdbc(byte[] der, boolean asIs) {}

  private ClientKey() {}

  /**
   * @param content the file's bytes, or the PEM text's
   * @param source what the key came from, for messages ("file /etc/x.pem", "the PEM text")
   * @param password {@code database.sslpassword}, empty when unset
   * @param certificateKey the public key of {@code database.sslcert}: the key must be its pair
   */
  static ForPgjdbc convert(byte[] content, String source, char[] password, PublicKey certificateKey) {
    byte[] der;
    boolean fromPem = Pem.containsPem(new String(content, StandardCharsets.ISO_8859_1));
    if (fromPem) {
      der = pkcs8OfPem(content, source);
    } else {
      der = content;
    }
    boolean encrypted = isEncryptedPrivateKeyInfo(der);
    byte[] plain = encrypted ? decrypt(der, source, password) : der;
    PrivateKey key = parse(plain, source, certificateKey.getAlgorithm());
    requirePair(key, certificateKey, source);
    if (encrypted) {
      return new ForPgjdbc(encrypt(plain, password), false);
    }
    return new ForPgjdbc(plain, !fromPem);
  }

  private static byte[] pkcs8OfPem(byte[] content, String source) {
    List<Pem.Block> blocks;
    try {
      blocks = Pem.blocks(new String(content, StandardCharsets.ISO_8859_1));
    } catch (IllegalArgumentException e) {
      throw problem(source + " is not valid PEM: " + e.getMessage());
    }
    Pem.Block key = blocks.stream().filter(b -> b.label().endsWith("PRIVATE KEY")).findFirst()
        .orElseThrow(() -> problem(source + " holds no private key (PEM blocks: "
            + String.join(", ", blocks.stream().map(Pem.Block::label).toList()) + ")"));
    switch (key.label()) {
      case "PRIVATE KEY", "ENCRYPTED PRIVATE KEY" -> {
        return key.der();
      }
      case "RSA PRIVATE KEY" -> {
        if (key.encrypted()) {
          throw problem(source + " is an encrypted PKCS#1 key (RSA PRIVATE KEY with Proc-Type: 4,ENCRYPTED), "
              + "which Java cannot read: convert it to encrypted PKCS#8 with: "
              + "openssl pkcs8 -topk8 -in key.pem -out key.p8.pem");
        }
        return pkcs8OfRsa(key.der());
      }
      default -> throw problem(source + " holds a key form pg2lite does not read (" + key.label() + "): convert it "
          + "to PKCS#8 with: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key.p8.pem (or without -nocrypt, and a "
          + SourceConfig.SSLPASSWORD_CONFIG + ")");
    }
  }

  /** PKCS#8's PrivateKeyInfo around a PKCS#1 RSAPrivateKey: version 0, rsaEncryption, the key as an OCTET STRING. */
  static byte[] pkcs8OfRsa(byte[] pkcs1) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(new byte[] {0x02, 0x01, 0x00});
    body.writeBytes(RSA_ALGORITHM);
    body.write(0x04);
    body.writeBytes(derLength(pkcs1.length));
    body.writeBytes(pkcs1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(0x30);
    out.writeBytes(derLength(body.size()));
    out.writeBytes(body.toByteArray());
    return out.toByteArray();
  }

  private static byte[] derLength(int length) {
    if (length < 0x80) {
      return new byte[] {(byte) length};
    }
    int bytes = length < 0x100 ? 1 : length < 0x10000 ? 2 : length < 0x1000000 ? 3 : 4;
    byte[] out = new byte[bytes + 1];
    out[0] = (byte) (0x80 | bytes);
    for (int i = 0; i < bytes; i++) {
      out[bytes - i] = (byte) (length >>> (8 * i));
    }
    return out;
  }

  /**
   * EncryptedPrivateKeyInfo is SEQUENCE { AlgorithmIdentifier (a SEQUENCE), OCTET STRING };
   * PrivateKeyInfo starts with its version, an INTEGER.
   */
  private static boolean isEncryptedPrivateKeyInfo(byte[] der) {
    if (der.length < 4 || der[0] != 0x30) {
      return false;
    }
    int lengthBytes = (der[1] & 0x80) == 0 ? 0 : der[1] & 0x7f;
    int first = 2 + lengthBytes;
    return first < der.length && der[first] == 0x30;
  }

  private static byte[] decrypt(byte[] der, String source, char[] password) {
    if (password.length == 0) {
      throw new ConfigProblemException(SourceConfig.SSLPASSWORD_CONFIG, source + " (" + SourceConfig.SSLKEY_CONFIG
          + ") is encrypted: set " + SourceConfig.SSLPASSWORD_CONFIG + " to its password");
    }
    EncryptedPrivateKeyInfo info;
    Cipher cipher;
    String algorithm;
    try {
      info = new EncryptedPrivateKeyInfo(der);
      algorithm = info.getAlgName();
      try {
        cipher = Cipher.getInstance(algorithm);
      } catch (NoSuchAlgorithmException e) {
        // PBES2 names its real algorithm in its parameters (PBEWithHmacSHA256AndAES_256, ...).
        if (info.getAlgParameters() == null) {
          throw e;
        }
        algorithm = info.getAlgParameters().toString();
        cipher = Cipher.getInstance(algorithm);
      }
    } catch (IOException | GeneralSecurityException e) {
      throw problem(source + " is an encrypted key in a form Java cannot decrypt (" + e.getMessage() + "): convert it "
          + "with: openssl pkcs8 -topk8 -v2 aes-256-cbc -in key.pem -out key.p8.pem");
    }
    try {
      cipher.init(Cipher.DECRYPT_MODE,
          SecretKeyFactory.getInstance(algorithm).generateSecret(new PBEKeySpec(password)), info.getAlgParameters());
      return info.getKeySpec(cipher).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new ConfigProblemException(SourceConfig.SSLPASSWORD_CONFIG, SourceConfig.SSLPASSWORD_CONFIG
          + " does not decrypt " + source + " (" + SourceConfig.SSLKEY_CONFIG + "): wrong password");
    }
  }

  private static byte[] encrypt(byte[] plain, char[] password) {
    try {
      byte[] salt = new byte[20];
      RANDOM.nextBytes(salt);
      Cipher cipher = Cipher.getInstance(REENCRYPTION);
      cipher.init(Cipher.ENCRYPT_MODE, SecretKeyFactory.getInstance(REENCRYPTION).generateSecret(
          new PBEKeySpec(password)), new PBEParameterSpec(salt, ITERATIONS));
      return new EncryptedPrivateKeyInfo(cipher.getParameters(), cipher.doFinal(plain)).getEncoded();
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot encrypt with " + REENCRYPTION + ": " + e.getMessage(), e);
    }
  }

  private static PrivateKey parse(byte[] pkcs8, String source, String algorithm) {
    try {
      return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    } catch (GeneralSecurityException e) {
      throw problem(source + " is not a PKCS#8 " + algorithm + " private key, the kind of key the certificate in "
          + SourceConfig.SSLCERT_CONFIG + " holds (" + e.getMessage() + ")");
    }
  }

  /** Signs with the key and verifies with the certificate's: the one test that holds for every key type. */
  private static void requirePair(PrivateKey key, PublicKey certificateKey, String source) {
    String algorithm = switch (certificateKey.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "DSA" -> "SHA256withDSA";
      case "EdDSA", "Ed25519", "Ed448" -> "EdDSA";
      default -> null; // RSASSA-PSS and rarer kinds: the handshake will tell
    };
    if (algorithm == null) {
      return;
    }
    boolean pair;
    try {
      byte[] probe = new byte[32];
      RANDOM.nextBytes(probe);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certificateKey);
      verifier.update(probe);
      pair = verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      pair = false;
    }
    if (!pair) {
      throw problem(source + " is not the private key of the certificate in " + SourceConfig.SSLCERT_CONFIG);
    }
  }

  private static ConfigProblemException problem(String message) {
    return new ConfigProblemException(SourceConfig.SSLKEY_CONFIG, SourceConfig.SSLKEY_CONFIG + ": " + message);
  }
}
