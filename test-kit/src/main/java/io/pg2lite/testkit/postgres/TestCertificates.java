package io.pg2lite.testkit.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PBEParameterSpec;

/**
 * Certificates for TLS tests, made at test time with the JDK alone (its {@code keytool} and
 * {@link KeyStore}), so no key material is checked in and no openssl is needed: a test CA; a
 * server certificate it signed for the names the test asks for; a client certificate it signed
 * whose CN is a role name (what pg_hba.conf's {@code cert} method compares with the user); and a
 * second, unrelated CA. Files are PEM; private keys are PKCS#8 ({@code BEGIN PRIVATE KEY}) and
 * readable by the owner only, as Postgres requires of its key.
 */
public final class TestCertificates {
  private static final String STORE_PASSWORD = "pg2lite-test";
  private final Path dir;

  private TestCertificates(Path dir) {
    this.dir = dir;
  }

  /**
   * Makes everything in {@code dir}. keytool runs as a process per step (the JDK has no API that
   * signs a certificate); steps that do not depend on each other run at once.
   *
   * @param clientName the client certificate's CN (a Postgres role)
   * @param serverNames the server certificate's subject alternative names, as keytool writes
   *     them: {@code dns:localhost}, {@code ip:127.0.0.1}
   */
  public static TestCertificates create(Path dir, String clientName, String... serverNames) throws IOException {
    Files.createDirectories(dir);
    TestCertificates c = new TestCertificates(dir);
    c.keytools(c.keyPair("ca", "CN=pg2lite test CA", true), c.keyPair("other-ca", "CN=pg2lite unrelated CA", true),
        c.keyPair("server", "CN=pg2lite test server", false), c.keyPair("client", "CN=" + clientName, false));
    c.keytools(c.request("server"), c.request("client"));
    c.keytools(c.sign("server", "eku=serverAuth", "san=" + String.join(",", serverNames)),
        c.sign("client", "eku=clientAuth"));
    for (String ca : List.of("ca", "other-ca")) {
      Files.writeString(dir.resolve(ca + ".crt"), pem("CERTIFICATE", c.certificate(ca)), StandardCharsets.US_ASCII);
    }
    for (String signed : List.of("server", "client")) {
      writePrivate(dir.resolve(signed + ".key"), pem("PRIVATE KEY", c.privateKey(signed).getEncoded()));
    }
    return c;
  }

  public Path directory() {
    return dir;
  }

  /** The test CA's certificate: what a client verifying the server trusts, and the server's ssl_ca_file. */
  public Path caCertificate() {
    return dir.resolve("ca.crt");
  }

  /** A CA that signed nothing here: trusting it alone, a client must reject the server. */
  public Path otherCaCertificate() {
    return dir.resolve("other-ca.crt");
  }

  public Path serverCertificate() {
    return dir.resolve("server.crt");
  }

  public Path serverKey() {
    return dir.resolve("server.key");
  }

  public Path clientCertificate() {
    return dir.resolve("client.crt");
  }

  /** The client's key, PKCS#8 PEM, unencrypted. */
  public Path clientKey() {
    return dir.resolve("client.key");
  }

  /** The client's private key itself. */
  public PrivateKey clientPrivateKey() throws IOException {
    return privateKey("client");
  }

  /**
   * The client's key as {@code openssl pkcs8 -topk8} writes it by default: PKCS#8 encrypted with
   * PBES2 (PBKDF2 with HMAC-SHA256, AES-256-CBC), {@code BEGIN ENCRYPTED PRIVATE KEY}.
   */
  public Path clientKeyEncrypted(String password) throws IOException {
    Path file = dir.resolve("client-encrypted.key");
    writePrivate(file, pem("ENCRYPTED PRIVATE KEY", encryptPbes2(clientPrivateKey().getEncoded(), password)));
    return file;
  }

  /** PKCS#8 encrypted with PBES2, as openssl's default; the JDK writes it only through these steps. */
  public static byte[] encryptPbes2(byte[] pkcs8, String password) throws IOException {
    try {
      String algorithm = "PBEWithHmacSHA256AndAES_256";
      SecureRandom random = new SecureRandom();
      byte[] salt = new byte[16];
      byte[] iv = new byte[16];
      random.nextBytes(salt);
      random.nextBytes(iv);
      Cipher cipher = Cipher.getInstance(algorithm);
      cipher.init(Cipher.ENCRYPT_MODE, SecretKeyFactory.getInstance(algorithm).generateSecret(
          new PBEKeySpec(password.toCharArray())), new PBEParameterSpec(salt, 10_000, new IvParameterSpec(iv)));
      byte[] encrypted = cipher.doFinal(pkcs8);
      // EncryptedPrivateKeyInfo wants the parameters under the name of their OID, PBES2.
      AlgorithmParameters pbes2 = AlgorithmParameters.getInstance("PBES2");
      pbes2.init(cipher.getParameters().getEncoded());
      return new EncryptedPrivateKeyInfo(pbes2, encrypted).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot encrypt a key with PBES2: " + e.getMessage(), e);
    }
  }

  /** PEM text of one block. */
  public static String pem(String label, byte[] der) {
    return "-----BEGIN " + label + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
        .encodeToString(der) + "\n-----END " + label + "-----\n";
  }

  private List<String> keyPair(String name, String subject, boolean authority) {
    List<String> args = new ArrayList<>(List.of("-genkeypair", "-keystore", store(name), "-storetype", "PKCS12",
        "-storepass", STORE_PASSWORD, "-alias", name, "-keyalg", "RSA", "-keysize", "2048", "-validity", "30",
        "-dname", subject));
    if (authority) {
      args.addAll(List.of("-ext", "bc:c"));
    }
    return args;
  }

  private List<String> request(String name) {
    return List.of("-certreq", "-keystore", store(name), "-storepass", STORE_PASSWORD, "-alias", name,
        "-file", dir.resolve(name + ".csr").toString());
  }

  /** The test CA signs {@code name}'s request; the certificate is written as PEM. */
  private List<String> sign(String name, String... extensions) {
    List<String> args = new ArrayList<>(List.of("-gencert", "-rfc", "-keystore", store("ca"), "-storepass",
        STORE_PASSWORD, "-alias", "ca", "-validity", "30", "-infile", dir.resolve(name + ".csr").toString(),
        "-outfile", dir.resolve(name + ".crt").toString()));
    for (String e : extensions) {
      args.addAll(List.of("-ext", e));
    }
    return args;
  }

  private byte[] certificate(String name) throws IOException {
    try {
      return keyStore(name).getCertificate(name).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot read the certificate of " + name + ": " + e.getMessage(), e);
    }
  }

  private PrivateKey privateKey(String name) throws IOException {
    try {
      return (PrivateKey) keyStore(name).getKey(name, STORE_PASSWORD.toCharArray());
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot read the key of " + name + ": " + e.getMessage(), e);
    }
  }

  private KeyStore keyStore(String name) throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(Path.of(store(name)))) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(in, STORE_PASSWORD.toCharArray());
      return ks;
    }
  }

  private String store(String name) {
    return dir.resolve(name + ".p12").toString();
  }

  /** Owner-only from the start: Postgres refuses a key file others may read. */
  private static void writePrivate(Path file, String text) throws IOException {
    Files.deleteIfExists(file);
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    }
    Files.writeString(file, text, StandardCharsets.US_ASCII);
  }

  /** Runs keytool once per argument list, all at once, and waits for every run. */
  @SafeVarargs
  private void keytools(List<String>... runs) throws IOException {
    List<Process> started = new ArrayList<>();
    try {
      for (List<String> args : runs) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(args);
        started.add(new ProcessBuilder(cmd).redirectErrorStream(true).start());
      }
      for (int i = 0; i < runs.length; i++) {
        Process p = started.get(i);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
          throw new IOException("keytool " + String.join(" ", runs[i]) + " failed: " + out);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted waiting for keytool", e);
    } finally {
      started.stream().filter(Process::isAlive).forEach(Process::destroy); // only after a failure
    }
  }
}
