package io.pg2lite.source.postgres;

import io.pg2lite.connect.failure.Failures;
import io.pg2lite.source.config.ConfigProblem;
import io.pg2lite.source.config.SourceConfig;
import java.io.FileNotFoundException;
import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * pgjdbc's TLS failures told as the setting to change and how. pgjdbc reports them all as
 * connection failures (SQLSTATE 08006), which pg2lite would retry as a network fault; a
 * certificate that does not verify heals only when someone changes a setting, so the caller
 * reports these as permanent problems instead.
 *
 * <p>Recognised by exception type where pgjdbc keeps the JDK's cause, and by the name of pgjdbc's
 * host-name verifier for the host-name check, which has none (its message is translated, the
 * class name is not). Anything else is not a TLS failure here: {@link #explain} returns null.
 */
final class TlsFailures {
  private static final Pattern ALERT = Pattern.compile("fatal alert: ([a-z_]+)");
  /** TLS alerts a server sends about the client's certificate. */
  private static final java.util.Set<String> CLIENT_CERTIFICATE_ALERTS = java.util.Set.of("bad_certificate",
      "unsupported_certificate", "certificate_revoked", "certificate_expired", "certificate_unknown", "unknown_ca",
      "certificate_required", "decrypt_error", "access_denied");

  private TlsFailures() {}

  /** The problem {@code e} (a failed connection, or what wraps one) shows, or null when it is no TLS failure. */
  static ConfigProblem explain(Throwable e, SourceConfig config) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    boolean handshake = false;
    for (Throwable t = e; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      String message = t.getMessage() == null ? "" : t.getMessage();
      if (message.toLowerCase(Locale.ROOT).contains("hostnameverifier")) {
        return hostName(config, message);
      }
      if (t instanceof SQLException sql && "28000".equals(sql.getSQLState())
          && message.toLowerCase(Locale.ROOT).contains("certificate")) {
        return certificateAuthentication(config, message);
      }
      if (t instanceof FileNotFoundException && config.sslRootCert.isEmpty() && config.sslMode.startsWith("verify")) {
        return defaultRootCertificateMissing(config);
      }
      handshake |= t instanceof SSLException;
      if (handshake && (t instanceof CertificateException || t instanceof CertPathBuilderException
          || t instanceof CertPathValidatorException)) {
        return serverCertificate(config, e);
      }
      Matcher alert = ALERT.matcher(message);
      if (t instanceof SSLException && alert.find() && CLIENT_CERTIFICATE_ALERTS.contains(alert.group(1))) {
        return clientCertificate(config, alert.group(1));
      }
    }
    return null;
  }

  private static ConfigProblem hostName(SourceConfig config, String message) {
    return new ConfigProblem(SourceConfig.HOST_CONFIG, "the server's certificate does not name the host "
        + SourceConfig.HOST_CONFIG + "=" + config.host + ", and " + SourceConfig.SSLMODE_CONFIG + "=" + config.sslMode
        + " checks that it does: connect with a host name the certificate lists in its subject alternative names, "
        + "or set " + SourceConfig.SSLMODE_CONFIG + "=verify-ca to check only that a trusted CA signed it (pgjdbc: "
        + message + ")");
  }

  private static ConfigProblem serverCertificate(SourceConfig config, Throwable e) {
    return new ConfigProblem(SourceConfig.SSLROOTCERT_CONFIG, "the server's certificate does not verify against "
        + rootCertificateSource(config) + ": " + Failures.rootMessage(e) + ". " + SourceConfig.SSLROOTCERT_CONFIG
        + " must hold the certificate of the CA that signed the server's certificate");
  }

  private static ConfigProblem defaultRootCertificateMissing(SourceConfig config) {
    return new ConfigProblem(SourceConfig.SSLROOTCERT_CONFIG, SourceConfig.SSLMODE_CONFIG + "=" + config.sslMode
        + " checks the server's certificate against a CA, but " + SourceConfig.SSLROOTCERT_CONFIG + " is not set and "
        + defaultRootCertificate() + " does not exist: set " + SourceConfig.SSLROOTCERT_CONFIG
        + " to the CA's certificate (a file name or the PEM text)");
  }

  private static ConfigProblem clientCertificate(SourceConfig config, String alert) {
    if (config.sslCert.isEmpty()) {
      return new ConfigProblem(SourceConfig.SSLCERT_CONFIG, "the server asks for a client certificate (TLS alert "
          + alert + "): set " + SourceConfig.SSLCERT_CONFIG + " and " + SourceConfig.SSLKEY_CONFIG);
    }
    return new ConfigProblem(SourceConfig.SSLCERT_CONFIG, "the server refused the client certificate, "
        + PostgresTls.describe(config.sslCert) + " (" + SourceConfig.SSLCERT_CONFIG + "), with TLS alert " + alert
        + ": it must be signed by a CA in the server's ssl_ca_file, and be valid now");
  }

  private static ConfigProblem certificateAuthentication(SourceConfig config, String message) {
    String fix = config.sslCert.isEmpty()
        ? "set " + SourceConfig.SSLCERT_CONFIG + " and " + SourceConfig.SSLKEY_CONFIG + " to a client certificate "
            + "and its key"
        : PostgresTls.describe(config.sslCert) + " must be signed by a CA in the server's ssl_ca_file (pgjdbc "
            + "presents it only then), and its common name (CN) must be " + config.user + " (or pg_hba.conf must map "
            + "it to that user)";
    return new ConfigProblem(SourceConfig.SSLCERT_CONFIG, "Postgres refused certificate authentication for user "
        + config.user + " (" + message + "): " + fix);
  }

  private static String rootCertificateSource(SourceConfig config) {
    return config.sslRootCert.isEmpty() ? defaultRootCertificate() + ", pgjdbc's default ("
        + SourceConfig.SSLROOTCERT_CONFIG + " is not set)"
        : PostgresTls.describe(config.sslRootCert) + " (" + SourceConfig.SSLROOTCERT_CONFIG + ")";
  }

  private static String defaultRootCertificate() {
    return Path.of(System.getProperty("user.home"), ".postgresql", "root.crt").toString();
  }
}
