package io.pg2lite.testkit.s3;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A real S3-compatible server for tests that also run Kafka Connect: S3Proxy from its
 * self-contained jar ({@code org.gaul:s3proxy:jar-with-dependencies}), in a child JVM, on the
 * jclouds filesystem backend in a temporary directory, with SigV4 (and V2) authentication against
 * one fixed key pair. A child process because S3Proxy's Jetty 11 and Servlet 5 must not meet
 * Connect's Jetty 12 on one class path (snapshot-s3's own tests run it in the test JVM instead).
 *
 * <p>The jar's path comes from the system property {@value #JAR_PROPERTY}, which the modules'
 * failsafe configuration sets to the copy Maven makes at build time. A bucket is a directory of
 * the filesystem backend: {@link #createBucket} makes one.
 */
public final class S3ProxyProcess implements AutoCloseable {
  public static final String JAR_PROPERTY = "pg2lite.s3proxy.jar";
  public static final String ACCESS_KEY_ID = "pg2lite-test-key";
  public static final String SECRET_ACCESS_KEY = "pg2lite-test-secret";
  private final Process process;
  private final Path data;
  private final int port;

  private S3ProxyProcess(Process process, Path data, int port) {
    this.process = process;
    this.data = data;
    this.port = port;
  }

  /** Starts S3Proxy and returns once it accepts connections. */
  public static S3ProxyProcess start() throws IOException, InterruptedException {
    String jar = System.getProperty(JAR_PROPERTY);
    if (jar == null || !Files.exists(Path.of(jar))) {
      throw new IllegalStateException("system property " + JAR_PROPERTY + " must name S3Proxy's jar-with-dependencies"
          + " (the module's failsafe configuration sets it); it is " + jar);
    }
    Path dir = Files.createTempDirectory("pg2lite-s3proxy");
    Path data = Files.createDirectories(dir.resolve("data"));
    int port = freePort();
    Path conf = dir.resolve("s3proxy.properties");
    Files.writeString(conf, String.join("\n", List.of(
        "s3proxy.endpoint=http://127.0.0.1:" + port,
        "s3proxy.authorization=aws-v2-or-v4",
        "s3proxy.identity=" + ACCESS_KEY_ID,
        "s3proxy.credential=" + SECRET_ACCESS_KEY,
        "jclouds.provider=filesystem",
        "jclouds.filesystem.basedir=" + data,
        "jclouds.identity=unused",
        "jclouds.credential=unused")) + "\n");
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-jar", jar, "--properties", conf.toString()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("s3proxy.log").toFile()).start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!accepts(port)) {
      if (!p.isAlive()) {
        throw new IllegalStateException("S3Proxy exited with " + p.exitValue() + "; see " + dir.resolve("s3proxy.log"));
      }
      if (System.nanoTime() > deadline) {
        p.destroyForcibly();
        throw new IllegalStateException("S3Proxy did not listen on port " + port + " within 60 s");
      }
      Thread.sleep(100);
    }
    return new S3ProxyProcess(p, data, port);
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** Creates a bucket (a valid S3 name: 3 to 63 lower-case letters, digits, dots and dashes). */
  public void createBucket(String name) throws IOException {
    if (!name.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
      throw new IllegalArgumentException("not a valid S3 bucket name: " + name);
    }
    Files.createDirectories(data.resolve(name));
  }

  /** The settings of a snapshot store in {@code bucket} of this server, as the connectors and followers take them. */
  public Map<String, String> storeSettings(String bucket) {
    return Map.of("snapshot.s3.bucket", bucket, "snapshot.s3.endpoint", endpoint().toString(),
        "snapshot.s3.path.style", "true", "snapshot.s3.access.key.id", ACCESS_KEY_ID,
        "snapshot.s3.secret.access.key", SECRET_ACCESS_KEY);
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
