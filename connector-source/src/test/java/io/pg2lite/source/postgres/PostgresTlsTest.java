package io.pg2lite.source.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.source.config.ConfigProblemException;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.testkit.postgres.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.PasswordCallback;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ssl.LazyKeyManager;
import org.postgresql.ssl.LibPQFactory;
import org.postgresql.ssl.PKCS12KeyManager;

/**
 * The TLS settings made into pgjdbc properties, read back by pgjdbc's own SSL factory and key
 * manager (no server: {@code TlsIT} has one). Certificates come from {@link TestCertificates}.
 */
class PostgresTlsTest {
  @TempDir
  static Path dir;
  private static TestCertificates certs;

  @BeforeAll
  static void certificates() throws Exception {
    certs = TestCertificates.create(dir.resolve("certs"), "alice", "dns:localhost");
  }

  private static SourceConfig config(Map<String, String> tls) {
    Map<String, String> m = new HashMap<>(Map.of("database.hostname", "db", "database.dbname", "app",
        "database.user", "alice", "topic", "changes", "kafka.bootstrap.servers", "k:9092",
        "database.sslmode", "verify-full"));
    m.putAll(tls);
    return new SourceConfig(m);
  }

  private static String text(Path file) throws Exception {
    return Files.readString(file);
  }

  /** The client key as pgjdbc's key manager loads it from the properties, password and all. */
  private static PrivateKey keyAsPgjdbcReadsIt(Map<String, String> p) throws Exception {
    CallbackHandler password = callbacks -> ((PasswordCallback) callbacks[0]).setPassword(
        p.getOrDefault("sslpassword", "").toCharArray());
    LazyKeyManager keys = new LazyKeyManager(p.get("sslcert"), p.get("sslkey"), password, false);
    PrivateKey key = keys.getPrivateKey("user");
    keys.throwKeyManagerException();
    return key;
  }

  private static ConfigProblemException problem(Map<String, String> tls) {
    return assertThrows(ConfigProblemException.class, () -> PostgresTls.open(config(tls)).close());
  }

  @Test
  void pemTextGoesToOwnerOnlyFilesThatCloseDeletes() throws Exception {
    PostgresTls tls = PostgresTls.open(config(Map.of("database.sslrootcert", text(certs.caCertificate()),
        "database.sslcert", text(certs.clientCertificate()), "database.sslkey", text(certs.clientKey()))));
    Map<String, String> p = tls.driverProperties();
    Path root = Path.of(p.get("sslrootcert"));
    Path directory = root.getParent();
    assertEquals(directory, Path.of(p.get("sslcert")).getParent());
    assertEquals(directory, Path.of(p.get("sslkey")).getParent());
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(directory)));
    for (String file : new String[] {"sslrootcert", "sslcert", "sslkey"}) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of(p.get(file)))),
          file);
    }
    assertEquals(text(certs.caCertificate()).strip(), text(root).strip());
    new LibPQFactory(toProperties(p)); // pgjdbc loads the root certificate (it throws if it cannot)
    assertEquals(certs.clientPrivateKey(), keyAsPgjdbcReadsIt(p));
    tls.close();
    assertFalse(Files.exists(directory), directory + " is left after close()");
  }

  @Test
  void filesPgjdbcReadsAsTheyAreAreNamedUnchangedAndPemKeysAreConverted() throws Exception {
    Path der = dir.resolve("client.pk8");
    Files.write(der, certs.clientPrivateKey().getEncoded());
    Map<String, String> files = Map.of("database.sslrootcert", certs.caCertificate().toString(),
        "database.sslcert", certs.clientCertificate().toString(), "database.sslkey", der.toString());
    try (PostgresTls tls = PostgresTls.open(config(files))) {
      assertEquals(Map.of("sslmode", "verify-full", "sslrootcert", certs.caCertificate().toString(),
          "sslcert", certs.clientCertificate().toString(), "sslkey", der.toString()), tls.driverProperties());
    }
    Map<String, String> pemKey = new HashMap<>(files);
    pemKey.put("database.sslkey", certs.clientKey().toString());
    try (PostgresTls tls = PostgresTls.open(config(pemKey))) {
      Map<String, String> p = tls.driverProperties();
      assertTrue(p.get("sslkey").endsWith("client.pk8") && !p.get("sslkey").equals(der.toString()), p.toString());
      assertEquals(certs.clientPrivateKey(), keyAsPgjdbcReadsIt(p));
    }
  }

  @Test
  void anEncryptedKeyStaysEncryptedAndPgjdbcDecryptsItWithThePassword() throws Exception {
    try (PostgresTls tls = PostgresTls.open(config(Map.of("database.sslcert", certs.clientCertificate().toString(),
        "database.sslkey", certs.clientKeyEncrypted("s3cret").toString(), "database.sslpassword", "s3cret")))) {
      Map<String, String> p = tls.driverProperties();
      assertEquals("s3cret", p.get("sslpassword"));
      assertEquals(ClientKey.REENCRYPTION,
          new EncryptedPrivateKeyInfo(Files.readAllBytes(Path.of(p.get("sslkey")))).getAlgName());
      assertEquals(certs.clientPrivateKey(), keyAsPgjdbcReadsIt(p));
    }
  }

  /**
   * A PKCS#12 file goes to pgjdbc by name, certificate included; pgjdbc reads only its entry named
   * "user", which keytool's stores here do not have.
   */
  @Test
  void aPkcs12FileIsHandedOnOnlyIfPgjdbcCanReadIt() throws Exception {
    Path readable = dir.resolve("user.p12");
    KeyStore user = KeyStore.getInstance("PKCS12");
    user.load(null, null);
    Certificate certificate;
    try (InputStream in = Files.newInputStream(certs.clientCertificate())) {
      certificate = CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    user.setKeyEntry("user", certs.clientPrivateKey(), "p12-secret".toCharArray(), new Certificate[] {certificate});
    try (OutputStream out = Files.newOutputStream(readable)) {
      user.store(out, "p12-secret".toCharArray());
    }
    try (PostgresTls tls = PostgresTls.open(config(Map.of("database.sslkey", readable.toString(),
        "database.sslpassword", "p12-secret")))) {
      Map<String, String> p = tls.driverProperties();
      assertEquals(readable.toString(), p.get("sslkey"));
      CallbackHandler password = callbacks -> ((PasswordCallback) callbacks[0]).setPassword(
          p.get("sslpassword").toCharArray());
      assertEquals(certs.clientPrivateKey(), new PKCS12KeyManager(p.get("sslkey"), password).getPrivateKey("user"));
    }

    String store = certs.directory().resolve("client.p12").toString();
    ConfigProblemException e = problem(Map.of("database.sslkey", store, "database.sslpassword", "pg2lite-test"));
    assertEquals(SourceConfig.SSLKEY_CONFIG, e.problem().field());
    assertTrue(e.getMessage().contains("has no key named \"user\", the only entry pgjdbc reads (it has: client)"),
        e.getMessage());
    e = problem(Map.of("database.sslkey", store, "database.sslpassword", "wrong"));
    assertTrue(e.getMessage().contains("cannot open the PKCS#12 file " + store), e.getMessage());
  }

  @Test
  void withoutTlsMaterialOnlyTheModeIsSet() {
    try (PostgresTls tls = PostgresTls.open(config(Map.of("database.sslmode", "require")))) {
      assertEquals(Map.of("sslmode", "require"), tls.driverProperties());
    }
  }

  @Test
  void aBadSettingIsAProblemOnTheSettingItNames() {
    String missing = dir.resolve("missing.crt").toString();
    ConfigProblemException e = problem(Map.of("database.sslrootcert", missing));
    assertEquals(SourceConfig.SSLROOTCERT_CONFIG, e.problem().field());
    assertTrue(e.getMessage().startsWith("database.sslrootcert: no file " + missing), e.getMessage());

    e = problem(Map.of("database.sslrootcert", certs.clientKey().toString()));
    assertEquals(SourceConfig.SSLROOTCERT_CONFIG, e.problem().field());
    assertTrue(e.getMessage().contains("the file " + certs.clientKey() + " holds no X.509 certificate"),
        e.getMessage());

    e = problem(Map.of("database.sslmode", "require", "database.sslrootcert", certs.caCertificate().toString()));
    assertEquals(SourceConfig.SSLROOTCERT_CONFIG, e.problem().field());
    assertTrue(e.getMessage().contains("database.sslmode=require never checks the server's certificate"),
        e.getMessage());

    e = problem(Map.of("database.sslmode", "disable", "database.sslcert", certs.clientCertificate().toString(),
        "database.sslkey", certs.clientKey().toString()));
    assertEquals(SourceConfig.SSLCERT_CONFIG, e.problem().field());
    assertTrue(e.getMessage().contains("database.sslmode=disable never presents it"), e.getMessage());

    e = problem(Map.of("database.sslcert", certs.clientCertificate().toString()));
    assertEquals(SourceConfig.SSLKEY_CONFIG, e.problem().field());
    e = problem(Map.of("database.sslkey", certs.clientKey().toString()));
    assertEquals(SourceConfig.SSLCERT_CONFIG, e.problem().field());

    e = problem(Map.of("database.sslcert", certs.clientCertificate().toString(),
        "database.sslkey", certs.serverKey().toString()));
    assertEquals(SourceConfig.SSLKEY_CONFIG, e.problem().field());
    assertTrue(e.getMessage().contains("is not the private key of the certificate in database.sslcert"),
        e.getMessage());
  }

  /** A message names the file, never the PEM text (a key's is a secret). */
  @Test
  void pemTextIsNeverQuotedInAProblem() throws Exception {
    String keyText = text(certs.clientKey());
    ConfigProblemException e = problem(Map.of("database.sslcert", text(certs.caCertificate()),
        "database.sslkey", keyText));
    assertTrue(e.getMessage().contains("the PEM text given"), e.getMessage());
    assertFalse(e.getMessage().contains("BEGIN"), e.getMessage());
  }

  private static Properties toProperties(Map<String, String> p) {
    Properties out = new Properties();
    out.putAll(p);
    return out;
  }
}
