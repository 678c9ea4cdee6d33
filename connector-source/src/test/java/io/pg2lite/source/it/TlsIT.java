package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.source.Pg2liteSourceConnector;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectorStatus;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestCertificates;
import io.pg2lite.testkit.support.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS settings against a Postgres with {@code ssl = on} and a certificate from a test CA
 * ({@link TestCertificates}): every connection of the source (the replication stream, the
 * catalog queries of the start-up and of validate(), the backfill copies) verifies the server
 * and authenticates with the same settings, and a wrong CA, host name, file or key password is
 * an error naming the setting.
 *
 * <p>pg_hba.conf makes TLS unavoidable for the two roles the tests connect as: {@value #CERT_USER}
 * only with a client certificate (method {@code cert}, no password), {@value #PASSWORD_USER} only
 * with a password over TLS. Any connection of theirs that works went through TLS. The server's
 * certificate names {@code localhost} only, so 127.0.0.1, the same server, is a host name it
 * does not hold.
 */
@ExtendWith(TestStackExtension.class)
class TlsIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String CERT_USER = "tls_cert";
  private static final String PASSWORD_USER = "tls_password";
  private static final String PASSWORD = "tls-secret";
  private static final String KEY_PASSWORD = "key-secret";

  @TempDir
  static Path dir;
  private static TestCertificates certs;
  private static PostgresServer postgres;

  @BeforeAll
  static void startServer() throws Exception {
    certs = TestCertificates.create(dir.resolve("certs"), CERT_USER, "dns:localhost");
    certs.clientKeyEncrypted(KEY_PASSWORD);
    postgres = PostgresServer.startWithTls(certs.serverCertificate(), certs.serverKey(), certs.caCertificate(),
        List.of("hostssl all " + CERT_USER + " all cert", "host all " + CERT_USER + " all reject",
            "hostssl all " + PASSWORD_USER + " all scram-sha-256", "host all " + PASSWORD_USER + " all reject"));
    try (Connection c = postgres.connect("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + CERT_USER + " LOGIN SUPERUSER REPLICATION");
      s.execute("CREATE ROLE " + PASSWORD_USER + " LOGIN SUPERUSER REPLICATION PASSWORD '" + PASSWORD + "'");
    }
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (postgres != null) {
      postgres.close();
    }
  }

  /** verify-full against the test CA, password authentication. */
  private static Map<String, String> passwordOverTls(SourceFixture f) {
    Map<String, String> c = f.config();
    c.put("database.user", PASSWORD_USER);
    c.put("database.password", PASSWORD);
    c.put("database.sslmode", "verify-full");
    c.put("database.sslrootcert", certs.caCertificate().toString());
    return c;
  }

  /** verify-full against the test CA, certificate authentication, no password; files named. */
  private static Map<String, String> certificateAuthentication(SourceFixture f) {
    Map<String, String> c = f.config();
    c.put("database.user", CERT_USER);
    c.remove("database.password");
    c.put("database.sslmode", "verify-full");
    c.put("database.sslrootcert", certs.caCertificate().toString());
    c.put("database.sslcert", certs.clientCertificate().toString());
    c.put("database.sslkey", certs.clientKey().toString());
    return c;
  }

  private static Map<String, List<String>> validate(TestStack stack, Map<String, String> config) {
    return stack.connect().rest().validate(Pg2liteSourceConnector.class.getName(), config);
  }

  private static void assertError(Map<String, List<String>> errors, String field, String text) {
    assertTrue(errors.containsKey(field), "expected an error on " + field + ", got " + errors);
    assertTrue(errors.get(field).stream().anyMatch(m -> m.contains(text)),
        "expected \"" + text + "\" in the errors of " + field + ": " + errors.get(field));
  }

  /** Table t with rows 1 and 2 (copied by the initial backfill), published. */
  private static void tableWithRows(SourceFixture f) throws Exception {
    f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'a'), (2, 'b')",
        "CREATE PUBLICATION " + f.name + "_pub FOR TABLE t");
  }

  /**
   * Row 3, inserted after the start, arrives through the replication stream; rows 1 and 2 through
   * a backfill copy; the start-up's catalog work came first (the connector is RUNNING).
   */
  private static void awaitStreamedAndCopied(SourceFixture f) throws Exception {
    f.db.execute("INSERT INTO t VALUES (3, 'c')");
    Await.until("row 3 streamed and rows 1 and 2 copied", WAIT, () -> {
      f.readAll(Duration.ofMillis(300));
      return ReplayRule.insertedIds(f.entries(), "id").contains(3L) && copiedIds(f).containsAll(List.of(1L, 2L));
    });
    assertEquals(List.of(3L), ReplayRule.insertedIds(f.entries(), "id"));
  }

  private static List<Long> copiedIds(SourceFixture f) {
    return f.allEntries().stream().filter(e -> e.message() instanceof DataChange.Backfill)
        .flatMap(e -> ((DataChange.Backfill) e.message()).rowValues().stream())
        .map(row -> ((Value.Int) row.get(0)).value()).toList();
  }

  /** The TLS state of the connector's walsender sessions: "ssl client_dn" per session. */
  private static List<String> walsenders(SourceFixture f, String user) throws Exception {
    return f.db.queryColumn("SELECT s.ssl || ' ' || coalesce(s.client_dn, '-') FROM pg_stat_ssl s "
        + "JOIN pg_stat_activity a USING (pid) WHERE a.backend_type = 'walsender' AND a.usename = '" + user
        + "' AND a.datname = current_database()");
  }

  @Test
  void verifyFullAgainstTheRightCaCarriesTheStreamTheCatalogAndTheCopies(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "tls_full", postgres)) {
      tableWithRows(f);
      Map<String, String> config = passwordOverTls(f);
      assertEquals(Map.of(), validate(stack, config));
      f.start(config);
      awaitStreamedAndCopied(f);
      List<String> sessions = walsenders(f, PASSWORD_USER);
      assertFalse(sessions.isEmpty(), "no walsender of " + PASSWORD_USER);
      assertTrue(sessions.stream().allMatch(s -> s.startsWith("true ")), sessions.toString());
    }
  }

  @Test
  void certificateAuthenticationWorksWithoutAPassword(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "tls_cert_auth", postgres)) {
      tableWithRows(f);
      Map<String, String> config = certificateAuthentication(f);
      assertEquals(Map.of(), validate(stack, config));
      f.start(config);
      awaitStreamedAndCopied(f);
      List<String> sessions = walsenders(f, CERT_USER);
      assertFalse(sessions.isEmpty(), "no walsender of " + CERT_USER);
      assertTrue(sessions.stream().allMatch(s -> s.equals("true /CN=" + CERT_USER)), sessions.toString());
    }
  }

  /**
   * The PEM text itself as the values, through a config provider ({@code ${dir:...}} resolves to
   * a file's content), with the key encrypted as openssl encrypts by default (PBES2).
   */
  @Test
  void pemTextFromAConfigProviderAndAnEncryptedKey(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "tls_pem_text", postgres)) {
      tableWithRows(f);
      Map<String, String> config = certificateAuthentication(f);
      String provider = "${dir:" + certs.directory() + ":";
      config.put("database.sslrootcert", provider + "ca.crt}");
      config.put("database.sslcert", provider + "client.crt}");
      config.put("database.sslkey", provider + "client-encrypted.key}");
      config.put("database.sslpassword", KEY_PASSWORD);
      assertEquals(Map.of(), validate(stack, config));
      f.start(config);
      awaitStreamedAndCopied(f);
    }
  }

  @Test
  void aWrongCaHostNameFileOrKeyPasswordIsAnErrorOnTheSetting(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "tls_wrong", postgres)) {
      tableWithRows(f);
      Map<String, String> c = passwordOverTls(f);
      c.put("database.sslrootcert", certs.otherCaCertificate().toString());
      assertError(validate(stack, c), "database.sslrootcert", "the server's certificate does not verify against the "
          + "file " + certs.otherCaCertificate());

      c = passwordOverTls(f);
      c.put("database.hostname", "127.0.0.1");
      Map<String, List<String>> hostName = validate(stack, c);
      assertError(hostName, "database.hostname", "the server's certificate does not name the host "
          + "database.hostname=127.0.0.1");
      assertError(hostName, "database.hostname", "could not be verified by hostnameverifier"); // pgjdbc's own words
      c.put("database.sslmode", "verify-ca"); // the CA alone still verifies
      assertEquals(Map.of(), validate(stack, c));

      c = passwordOverTls(f);
      c.put("database.sslrootcert", dir.resolve("no-such.crt").toString());
      assertError(validate(stack, c), "database.sslrootcert", "no file " + dir.resolve("no-such.crt"));

      c = passwordOverTls(f);
      c.put("database.sslmode", "require");
      assertError(validate(stack, c), "database.sslrootcert", "never checks the server's certificate");

      c = certificateAuthentication(f);
      c.put("database.sslkey", certs.directory().resolve("client-encrypted.key").toString());
      c.put("database.sslpassword", "wrong");
      assertError(validate(stack, c), "database.sslpassword", "wrong password");

      c = certificateAuthentication(f);
      c.put("database.sslkey", certs.serverKey().toString());
      assertError(validate(stack, c), "database.sslkey", "is not the private key of the certificate");

      c = certificateAuthentication(f);
      c.remove("database.sslcert");
      c.remove("database.sslkey");
      assertError(validate(stack, c), "database.sslcert", "Postgres refused certificate authentication for user "
          + CERT_USER);
    }
  }

  /**
   * A task that no longer trusts the server (its CA file replaced while it was stopped) fails at
   * once, naming the setting, instead of retrying for the 15 minutes of retry.timeout.ms as it
   * would a network fault. (A config that does not verify never gets that far: Connect validates
   * it when it is submitted, and refuses it with the same message.)
   */
  @Test
  void aTaskThatNoLongerTrustsTheServerFailsAtOnceNamingTheSetting(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "tls_task_wrong_ca", postgres)) {
      tableWithRows(f);
      Path trusted = dir.resolve("trusted-ca.crt");
      Files.copy(certs.caCertificate(), trusted, StandardCopyOption.REPLACE_EXISTING);
      Map<String, String> c = passwordOverTls(f);
      c.put("database.sslrootcert", trusted.toString());
      f.start(c);
      stack.connect().rest().stop(f.name);
      stack.connect().rest().awaitStopped(f.name, WAIT);
      Files.copy(certs.otherCaCertificate(), trusted, StandardCopyOption.REPLACE_EXISTING);
      stack.connect().rest().resume(f.name);
      ConnectorStatus failed = stack.connect().rest().awaitFailed(f.name, Duration.ofSeconds(60));
      assertTrue(failed.failure().contains("the server's certificate does not verify against the file " + trusted
          + " (database.sslrootcert)"), failed.failure());
    }
  }
}
