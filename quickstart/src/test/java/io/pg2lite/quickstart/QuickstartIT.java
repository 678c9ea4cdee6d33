package io.pg2lite.quickstart;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The plugin archives end to end: the quickstart's Connect worker runs in its own process with
 * {@code plugin.path} at the unpacked archives (both plugins side by side, loaded through Connect's
 * plugin isolation: neither connector is on the worker's classpath), registered from the example
 * configs in {@code etc/} through the env config provider. The demo's schema change and newly
 * published table must reach the replica.
 */
class QuickstartIT {
  private static final Path PLUGINS = Path.of(System.getProperty("pg2lite.pluginPath", "target/plugins"));
  private static final Path ETC = Path.of(System.getProperty("pg2lite.etc", "../etc"));

  @Test
  void theArchivesHaveTheHubLayoutWithoutKafkaClasses() throws Exception {
    for (String plugin : new String[] {"source", "sink"}) {
      Path dir;
      try (var dirs = Files.list(PLUGINS)) {
        dir = dirs.filter(d -> d.getFileName().toString().startsWith("pg2lite-" + plugin + "-")).findFirst()
            .orElseThrow(() -> new AssertionError("no pg2lite-" + plugin + " archive in " + PLUGINS));
      }
      assertTrue(Files.readString(dir.resolve("manifest.json")).contains("\"component_types\""));
      assertTrue(Files.isDirectory(dir.resolve("etc")) && Files.isDirectory(dir.resolve("doc")));
      try (var jars = Files.list(dir.resolve("lib"))) {
        for (Path jar : jars.toList()) {
          assertTrue(!jar.getFileName().toString().startsWith("kafka") && !jar.getFileName().toString()
              .startsWith("connect-"), "no Kafka or Connect jar in the archive: " + jar);
          try (ZipFile z = new ZipFile(jar.toFile())) {
            assertTrue(z.stream().noneMatch(e -> e.getName().startsWith("org/apache/kafka/")),
                "no Kafka classes inside " + jar);
          }
        }
      }
      assertDocsStayInside(dir);
      Path connectorJar = dir.resolve("lib").resolve(
          "pg2lite-connector-" + plugin + "-" + dir.getFileName().toString().substring(("pg2lite-" + plugin + "-").length())
          + ".jar");
      try (ZipFile z = new ZipFile(connectorJar.toFile())) {
        String service = "META-INF/services/org.apache.kafka.connect." + plugin + "." + (plugin.equals("source")
            ? "SourceConnector" : "SinkConnector");
        assertNotNull(z.getEntry(service), "ServiceLoader manifest " + service + " in " + connectorJar);
      }
    }
  }

  /**
   * The archive's README names its plugin and version, and every relative link of its markdown
   * files (README.md, doc/**.md) resolves to a file inside the archive: an operator reading the
   * unzipped plugin never meets a link into the source tree.
   */
  private static void assertDocsStayInside(Path dir) throws Exception {
    String readme = Files.readString(dir.resolve("README.md"));
    assertTrue(!readme.contains("${"), "the archive README is filtered: " + readme.lines().findFirst().orElse(""));
    assertTrue(readme.contains("doc/operations.md"), "the archive README points at doc/operations.md");
    java.util.regex.Pattern link = java.util.regex.Pattern.compile("\\]\\(([^)#\\s]+)(#[^)]*)?\\)");
    List<Path> docs;
    try (var walk = Files.walk(dir)) {
      docs = walk.filter(f -> f.toString().endsWith(".md") && !f.startsWith(dir.resolve("lib"))).toList();
    }
    assertTrue(docs.size() > 5, "the docs are in the archive: " + docs);
    for (Path md : docs) {
      var m = link.matcher(Files.readString(md));
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("[a-z]+:.*")) {
          continue; // http(s), mailto: outside on purpose
        }
        Path resolved = md.getParent().resolve(target).normalize();
        assertTrue(resolved.startsWith(dir) && Files.exists(resolved),
            dir.relativize(md) + " links to " + target + ", which is not in the archive");
      }
    }
  }

  @Test
  void theQuickstartReplicatesThroughThePluginArchives() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(new TeeStream(log, System.out), true, StandardCharsets.UTF_8);
    // What else reaches the console (the servers' own start-up lines) is captured too.
    PrintStream original = System.out;
    PrintStream originalErr = System.err;
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    System.setOut(new PrintStream(new TeeStream(console, original), true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(new TeeStream(console, originalErr), true, StandardCharsets.UTF_8));
    Quickstart.Result r;
    try {
      r = new Quickstart(PLUGINS.toAbsolutePath(), ETC.toAbsolutePath(), out, true).run(Duration.ofSeconds(15));
    } finally {
      System.setOut(original);
      System.setErr(originalErr);
    }
    String printed = log.toString(StandardCharsets.UTF_8);
    assertTrue(r.replicaEqualsPostgres(), "replica differs: " + r.difference());
    assertTrue(printed.contains("watermark") && printed.contains("lag"), printed);
    assertTrue(printed.contains("schema change reached the replica: customer has a new column tier"), printed);
    assertTrue(printed.contains("the replica has a new table orders"), printed);
    assertTrue(printed.contains("follower c started on an empty directory: restored the sink's snapshot at offset"),
        printed);
    assertTrue(printed.contains("followers a, b, c equal Postgres too"), printed);
    String noise = console.toString(StandardCharsets.UTF_8);
    assertTrue(!noise.contains("Bootstrap metadata") && !noise.contains("test stack:")
        && !noise.contains("QuorumController"),
        "server start-up lines stay out of the progress lines: " + noise);
  }

  /** Writes to two streams: the test's log and the console. */
  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream a;
    private final java.io.OutputStream b;

    TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws java.io.IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public void write(byte[] buf, int off, int len) throws java.io.IOException {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }
  }
}
