package io.pg2lite.source.postgres;

import io.pg2lite.source.config.ConfigProblemException;
import io.pg2lite.source.config.SourceConfig;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The TLS settings of the source ({@code database.sslmode}, {@code .sslrootcert}, {@code .sslcert},
 * {@code .sslkey}, {@code .sslpassword}) as pgjdbc connection properties: the same ones for the
 * replication stream, the catalog queries and the backfill copies ({@link PostgresConnections}).
 *
 * <p>pgjdbc takes file names only. A setting may hold the PEM text itself (a config provider's
 * output), and a key may be in a form pgjdbc does not read ({@link ClientKey}); those are written
 * to a directory of this instance's own, readable by the worker's user only (0700, files 0600),
 * and deleted by {@link #close()} (or when the JVM exits, if it exits first). A file name whose
 * content pgjdbc reads as it is goes to pgjdbc unchanged.
 *
 * <p>Invariant: one instance per task (and per {@code validate()} call), opened once: every
 * reconnect of the task reuses its files, so a connection that keeps failing writes nothing new.
 *
 * <p>Everything is checked when opened, so a bad setting fails at once with a message that names
 * it: a missing or unreadable file, text that is no certificate or key, a key that is not the
 * certificate's, a wrong key password, a root certificate or client certificate under an sslmode
 * that never uses it.
 */
public final class PostgresTls implements AutoCloseable {
  private static final Set<String> VERIFYING = Set.of("verify-ca", "verify-full");

  /** pgjdbc property names to values. */
  private final Map<String, String> properties = new LinkedHashMap<>();
  /** Null until a file is written. */
  private Path directory;

  private PostgresTls() {}

  /** Checks the settings and writes what must be written. Throws {@link ConfigProblemException}. */
  public static PostgresTls open(SourceConfig config) {
    PostgresTls tls = new PostgresTls();
    try {
      tls.properties.put("sslmode", config.sslMode);
      if (!config.sslRootCert.isEmpty()) {
        tls.rootCertificate(config);
      }
      if (!config.sslCert.isEmpty() || !config.sslKey.value().isEmpty()) {
        tls.clientCertificate(config);
      }
      if (!config.sslPassword.value().isEmpty()) {
        tls.properties.put("sslpassword", config.sslPassword.value());
      }
      return tls;
    } catch (RuntimeException e) {
      tls.close();
      throw e;
    }
  }

  /**
   * What pgjdbc needs: {@code sslmode}, and {@code sslrootcert}, {@code sslcert}, {@code sslkey},
   * {@code sslpassword} when set.
   */
  public Map<String, String> driverProperties() {
    return Map.copyOf(properties);
  }

  private void rootCertificate(SourceConfig config) {
    if (!VERIFYING.contains(config.sslMode)) {
      throw new ConfigProblemException(SourceConfig.SSLROOTCERT_CONFIG, SourceConfig.SSLROOTCERT_CONFIG
          + " is set, but " + SourceConfig.SSLMODE_CONFIG + "=" + config.sslMode + " never checks the server's "
          + "certificate: set " + SourceConfig.SSLMODE_CONFIG + " to verify-full (or verify-ca)");
    }
    byte[] content = read(SourceConfig.SSLROOTCERT_CONFIG, config.sslRootCert);
    certificates(SourceConfig.SSLROOTCERT_CONFIG, config.sslRootCert, content);
    properties.put("sslrootcert", fileFor(config.sslRootCert, "root.crt", content));
  }

  private void clientCertificate(SourceConfig config) {
    String key = config.sslKey.value().strip();
    boolean pkcs12 = !Pem.isPem(key) && isPkcs12(key); // holds its certificate: database.sslcert is not needed
    if (key.isEmpty() || (config.sslCert.isEmpty() && !pkcs12)) {
      String missing = key.isEmpty() ? SourceConfig.SSLKEY_CONFIG : SourceConfig.SSLCERT_CONFIG;
      String set = key.isEmpty() ? SourceConfig.SSLCERT_CONFIG : SourceConfig.SSLKEY_CONFIG;
      throw new ConfigProblemException(missing, set + " is set without " + missing
          + ": a client certificate and its private key go together");
    }
    if ("disable".equals(config.sslMode)) {
      throw new ConfigProblemException(SourceConfig.SSLCERT_CONFIG, "a client certificate is set, but "
          + SourceConfig.SSLMODE_CONFIG + "=disable never presents it: set " + SourceConfig.SSLMODE_CONFIG
          + " to verify-full (or another mode that uses TLS)");
    }
    char[] password = config.sslPassword.value().toCharArray();
    if (pkcs12) {
      checkPkcs12(key, password);
      properties.put("sslkey", key);
      return;
    }
    byte[] certContent = read(SourceConfig.SSLCERT_CONFIG, config.sslCert);
    X509Certificate certificate = certificates(SourceConfig.SSLCERT_CONFIG, config.sslCert, certContent).get(0);
    properties.put("sslcert", fileFor(config.sslCert, "client.crt", certContent));
    byte[] keyContent = read(SourceConfig.SSLKEY_CONFIG, key);
    ClientKey.ForPgjdbc converted = ClientKey.convert(keyContent, describe(key), password, certificate.getPublicKey());
    properties.put("sslkey", converted.asIs() ? key : write("client.pk8", converted.der()).toString());
  }

  /** pgjdbc reads a key as PKCS#12 by its file name's ending, certificate included. */
  private static boolean isPkcs12(String file) {
    String lower = file.toLowerCase(Locale.ROOT);
    return lower.endsWith(".p12") || lower.endsWith(".pfx");
  }

  /** pgjdbc reads the entry named "user" of a PKCS#12 file, and no other. */
  private static void checkPkcs12(String file, char[] password) {
    KeyStore store;
    try (InputStream in = Files.newInputStream(Path.of(file))) {
      store = KeyStore.getInstance("PKCS12");
      store.load(in, password);
    } catch (NoSuchFileException e) {
      throw new ConfigProblemException(SourceConfig.SSLKEY_CONFIG, SourceConfig.SSLKEY_CONFIG + ": no file " + file);
    } catch (IOException | GeneralSecurityException e) {
      throw new ConfigProblemException(SourceConfig.SSLKEY_CONFIG, SourceConfig.SSLKEY_CONFIG + ": cannot open the "
          + "PKCS#12 file " + file + " with " + SourceConfig.SSLPASSWORD_CONFIG + " (" + e.getMessage() + ")");
    }
    try {
      if (!store.isKeyEntry("user")) {
        throw new ConfigProblemException(SourceConfig.SSLKEY_CONFIG, SourceConfig.SSLKEY_CONFIG + ": the PKCS#12 "
            + "file " + file + " has no key named \"user\", the only entry pgjdbc reads (it has: "
            + String.join(", ", Collections.list(store.aliases())) + "); export it with -name user");
      }
    } catch (KeyStoreException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The value's content: the PEM text itself, or the named file's bytes. */
  private static byte[] read(String setting, String value) {
    if (Pem.isPem(value)) {
      return (value.strip() + "\n").getBytes(StandardCharsets.US_ASCII);
    }
    try {
      return Files.readAllBytes(Path.of(value));
    } catch (NoSuchFileException e) {
      throw new ConfigProblemException(setting, setting + ": no file " + value + " (give the name of a file readable "
          + "by the worker's user, or the PEM text itself)");
    } catch (IOException | RuntimeException e) {
      throw new ConfigProblemException(setting, setting + ": cannot read " + value + " (" + e + ")");
    }
  }

  private static List<X509Certificate> certificates(String setting, String value, byte[] content) {
    try {
      Collection<? extends Certificate> read =
          CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(content));
      if (read.isEmpty()) {
        throw new CertificateException("none found");
      }
      return read.stream().map(c -> (X509Certificate) c).toList();
    } catch (CertificateException e) {
      throw new ConfigProblemException(setting, setting + ": " + describe(value) + " holds no X.509 certificate in "
          + "PEM or DER (" + e.getMessage() + ")");
    }
  }

  /** A file pgjdbc reads for {@code value}: the named file, or the PEM text written to a private one. */
  private String fileFor(String value, String name, byte[] content) {
    return Pem.isPem(value) ? write(name, content).toString() : value;
  }

  private Path write(String name, byte[] content) {
    try {
      if (directory == null) {
        directory = posix()
            ? Files.createTempDirectory("pg2lite-tls-", PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")))
            : Files.createTempDirectory("pg2lite-tls-");
        directory.toFile().deleteOnExit(); // registered first: deleted after its files
      }
      Path file = directory.resolve(name);
      if (posix()) {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      }
      file.toFile().deleteOnExit();
      Files.write(file, content);
      return file;
    } catch (IOException e) {
      throw new IllegalStateException("cannot write TLS material to a private temporary file: " + e.getMessage(), e);
    }
  }

  private static boolean posix() {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }

  /** For messages: never the PEM text itself (a key's would be a secret). */
  static String describe(String value) {
    return Pem.isPem(value) ? "the PEM text given" : "the file " + value;
  }

  /**
   * Deletes the files written, if any. The connections opened with them keep working: pgjdbc
   * reads them only while connecting.
   */
  @Override
  public void close() {
    if (directory == null) {
      return;
    }
    File[] files = directory.toFile().listFiles();
    if (files != null) {
      for (File f : files) {
        f.delete();
      }
    }
    directory.toFile().delete();
  }
}
