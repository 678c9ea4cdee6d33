package io.pg2lite.source.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.connect.failure.Failures;
import io.pg2lite.source.config.ConfigProblemException;
import io.pg2lite.source.config.SourceConfig;
import java.net.ConnectException;
import java.security.cert.CertPathBuilderException;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

/**
 * pgjdbc's TLS failures, in the shapes pgjdbc 42.7 builds them (its MakeSSL; TlsIT meets the real
 * ones from a server), told as permanent problems on the setting to change.
 */
class TlsFailuresTest {
  private static PostgresConnections connections(Map<String, String> extra) {
    Map<String, String> m = new HashMap<>(Map.of("database.hostname", "127.0.0.1", "database.dbname", "app",
        "database.user", "alice", "topic", "changes", "kafka.bootstrap.servers", "k:9092",
        "database.sslmode", "verify-full"));
    m.putAll(extra);
    return PostgresConnections.open(new SourceConfig(m));
  }

  @Test
  void anUntrustedServerCertificateIsPermanentAndNamesTheRootCertificate() {
    SSLHandshakeException handshake = new SSLHandshakeException("PKIX path building failed");
    handshake.initCause(new CertPathBuilderException("unable to find valid certification path to requested target"));
    PSQLException pgjdbc = new PSQLException("SSL error: PKIX path building failed", PSQLState.CONNECTION_FAILURE,
        handshake);
    assertTrue(Failures.isTransient(pgjdbc), "pgjdbc calls it a connection failure");
    try (PostgresConnections c = connections(Map.of())) {
      ConfigProblemException e = c.explained(pgjdbc);
      assertEquals(SourceConfig.SSLROOTCERT_CONFIG, e.problem().field());
      assertTrue(e.getMessage().startsWith("the server's certificate does not verify against "), e.getMessage());
      assertTrue(e.getMessage().contains("(database.sslrootcert is not set): unable to find valid certification path"),
          e.getMessage());
      assertFalse(Failures.isTransient(e), "retrying cannot heal it");
      assertSame(pgjdbc, e.getSuppressed()[0], "pgjdbc's exception stays in the trace");
    }
  }

  @Test
  void aHostNameTheCertificateDoesNotHoldNamesTheHost() {
    PSQLException pgjdbc = new PSQLException("The hostname 127.0.0.1 could not be verified by hostnameverifier "
        + "PgjdbcHostnameVerifier.", PSQLState.CONNECTION_FAILURE);
    try (PostgresConnections c = connections(Map.of())) {
      ConfigProblemException e = c.explained(pgjdbc);
      assertEquals(SourceConfig.HOST_CONFIG, e.problem().field());
      assertTrue(e.getMessage().contains("does not name the host database.hostname=127.0.0.1"), e.getMessage());
      assertTrue(e.getMessage().contains("verify-ca"), e.getMessage());
    }
  }

  @Test
  void aRefusedCertificateAuthenticationNamesTheClientCertificate() {
    PSQLException server = new PSQLException("FATAL: connection requires a valid client certificate",
        PSQLState.INVALID_AUTHORIZATION_SPECIFICATION);
    try (PostgresConnections c = connections(Map.of())) {
      ConfigProblemException e = c.explained(server);
      assertEquals(SourceConfig.SSLCERT_CONFIG, e.problem().field());
      assertTrue(e.getMessage().contains("set database.sslcert and database.sslkey"), e.getMessage());
    }
  }

  @Test
  void otherFailuresAreNotTls() {
    try (PostgresConnections c = connections(Map.of())) {
      assertNull(c.explained(new PSQLException("Connection refused", PSQLState.CONNECTION_UNABLE_TO_CONNECT,
          new ConnectException("Connection refused"))));
      assertNull(c.explained(new PSQLException("FATAL: password authentication failed for user \"alice\"",
          PSQLState.INVALID_PASSWORD)));
    }
  }
}
