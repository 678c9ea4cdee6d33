package io.pg2lite.source.postgres;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.source.config.ConfigProblemException;
import io.pg2lite.source.config.SourceConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import org.junit.jupiter.api.Test;

/**
 * {@code database.sslkey} in the forms openssl writes (test resources tls/, see its README), turned
 * into what pgjdbc's key manager reads. The expected PKCS#8 is openssl's own conversion of the
 * same key, so the conversions here are checked against an independent implementation.
 */
class ClientKeyTest {
  private static final char[] PASSWORD = "pg2lite-test".toCharArray();

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = ClientKeyTest.class.getResourceAsStream("/tls/" + name)) {
      return in.readAllBytes();
    }
  }

  /** The public key of the fixtures' RSA key: the certificate's, in real use. */
  private static PublicKey publicKey() throws Exception {
    RSAPrivateCrtKey key = (RSAPrivateCrtKey) KeyFactory.getInstance("RSA")
        .generatePrivate(new PKCS8EncodedKeySpec(resource("rsa-pkcs8.der")));
    return KeyFactory.getInstance("RSA")
        .generatePublic(new RSAPublicKeySpec(key.getModulus(), key.getPublicExponent()));
  }

  /** Decrypts as pgjdbc 42.7's LazyKeyManager does: the cipher named by the key's algorithm name. */
  private static byte[] decryptAsPgjdbc(byte[] der, char[] password) throws Exception {
    EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
    Cipher cipher = Cipher.getInstance(info.getAlgName());
    cipher.init(Cipher.DECRYPT_MODE,
        SecretKeyFactory.getInstance(info.getAlgName()).generateSecret(new PBEKeySpec(password)),
        info.getAlgParameters());
    return info.getKeySpec(cipher).getEncoded();
  }

  private static ConfigProblemException refused(String resource, char[] password) {
    return assertThrows(ConfigProblemException.class,
        () -> ClientKey.convert(resource(resource), "the file " + resource, password, publicKey()));
  }

  @Test
  void aPkcs1RsaKeyIsWrappedIntoThePkcs8OpensslWrites() throws Exception {
    ClientKey.ForPgjdbc key = ClientKey.convert(resource("rsa-pkcs1.pem"), "k", new char[0], publicKey());
    assertArrayEquals(resource("rsa-pkcs8.der"), key.der());
    assertFalse(key.asIs(), "PEM is converted: pgjdbc reads none");
  }

  @Test
  void aPkcs8PemKeyBecomesItsDer() throws Exception {
    String pem = "-----BEGIN PRIVATE KEY-----\n" + java.util.Base64.getMimeEncoder().encodeToString(
        resource("rsa-pkcs8.der")) + "\n-----END PRIVATE KEY-----\n";
    ClientKey.ForPgjdbc key = ClientKey.convert(pem.getBytes(StandardCharsets.US_ASCII), "k", new char[0], publicKey());
    assertArrayEquals(resource("rsa-pkcs8.der"), key.der());
  }

  @Test
  void aPkcs8DerFileIsReadAsItIs() throws Exception {
    ClientKey.ForPgjdbc key = ClientKey.convert(resource("rsa-pkcs8.der"), "k", new char[0], publicKey());
    assertTrue(key.asIs());
    assertArrayEquals(resource("rsa-pkcs8.der"), key.der());
  }

  /**
   * openssl's default encryption (PBES2) is one pgjdbc cannot decrypt (no JDK cipher is named
   * "PBES2"); the key handed on is encrypted with a scheme it can, under the same password, and
   * never plain.
   */
  @Test
  void aPbes2KeyIsEncryptedAgainInAFormPgjdbcDecrypts() throws Exception {
    assertThrows(java.security.NoSuchAlgorithmException.class,
        () -> decryptAsPgjdbc(Pem.blocks(new String(resource("rsa-pbes2.pem"), StandardCharsets.US_ASCII)).get(0)
            .der(), PASSWORD));
    ClientKey.ForPgjdbc key = ClientKey.convert(resource("rsa-pbes2.pem"), "k", PASSWORD, publicKey());
    assertFalse(key.asIs());
    assertEquals(ClientKey.REENCRYPTION, new EncryptedPrivateKeyInfo(key.der()).getAlgName());
    assertArrayEquals(resource("rsa-pkcs8.der"), decryptAsPgjdbc(key.der(), PASSWORD));
  }

  @Test
  void anEncryptedKeyNeedsTheRightPassword() {
    ConfigProblemException missing = refused("rsa-pbes2.pem", new char[0]);
    assertEquals(SourceConfig.SSLPASSWORD_CONFIG, missing.problem().field());
    assertTrue(missing.getMessage().contains("is encrypted: set database.sslpassword"), missing.getMessage());
    ConfigProblemException wrong = refused("rsa-pbes2.pem", "wrong".toCharArray());
    assertEquals(SourceConfig.SSLPASSWORD_CONFIG, wrong.problem().field());
    assertTrue(wrong.getMessage().contains("database.sslpassword does not decrypt the file rsa-pbes2.pem"),
        wrong.getMessage());
  }

  @Test
  void formsJavaCannotReadAreRefusedWithTheCommandThatConvertsThem() {
    ConfigProblemException pkcs1 = refused("rsa-pkcs1-encrypted.pem", PASSWORD);
    assertEquals(SourceConfig.SSLKEY_CONFIG, pkcs1.problem().field());
    assertTrue(pkcs1.getMessage().contains("encrypted PKCS#1 key") && pkcs1.getMessage().contains("openssl pkcs8"),
        pkcs1.getMessage());
    ConfigProblemException ec = refused("ec-sec1.pem", new char[0]);
    assertTrue(ec.getMessage().contains("holds a key form pg2lite does not read (EC PRIVATE KEY)")
        && ec.getMessage().contains("openssl pkcs8 -topk8"), ec.getMessage());
  }

  @Test
  void aKeyOfAnotherCertificateOrNoKeyAtAllIsRefused() throws Exception {
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(1024); // any other key; a small one is quick to make
    PublicKey other = rsa.generateKeyPair().getPublic();
    ConfigProblemException e = assertThrows(ConfigProblemException.class,
        () -> ClientKey.convert(resource("rsa-pkcs1.pem"), "the file k.pem", new char[0], other));
    assertEquals("database.sslkey: the file k.pem is not the private key of the certificate in database.sslcert",
        e.getMessage());
    ConfigProblemException text = assertThrows(ConfigProblemException.class, () -> ClientKey.convert(
        "not a key".getBytes(StandardCharsets.US_ASCII), "the file k.pem", new char[0], publicKey()));
    assertEquals(SourceConfig.SSLKEY_CONFIG, text.problem().field());
    assertTrue(text.getMessage().startsWith("database.sslkey: the file k.pem is not a PKCS#8 RSA private key"),
        text.getMessage());
  }

  /** A body under 128 bytes has a one-byte DER length (the 2048-bit fixtures take the two-byte form). */
  @Test
  void aShortKeyHasAShortDerLength() {
    byte[] wrapped = ClientKey.pkcs8OfRsa(new byte[] {0x30, 0x00});
    assertEquals(0x30, wrapped[0]);
    assertEquals(wrapped.length - 2, wrapped[1]);
  }
}
