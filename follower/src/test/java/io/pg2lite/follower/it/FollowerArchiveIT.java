package io.pg2lite.follower.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The archive {@code mvn package} builds is a program that runs as unpacked: its script starts the
 * follower from {@code lib/} alone (the Kafka client and a logging binding inside, nothing of
 * Connect), its README is filtered, and its docs are there, every link of the guide resolving inside.
 */
class FollowerArchiveIT {
  /** The unpacked archive: the assembly's dir format nests its base directory inside a directory of that name. */
  private static Path archive() throws Exception {
    try (Stream<Path> dirs = Files.list(Path.of("target"))) {
      Path d = dirs.filter(x -> Files.isDirectory(x) && x.getFileName().toString().startsWith("pg2lite-follower-"))
          .findFirst().orElseThrow(() -> new AssertionError("no unpacked archive in target/ (mvn package builds it)"));
      return Files.isDirectory(d.resolve(d.getFileName())) ? d.resolve(d.getFileName()) : d;
    }
  }

  @Test
  void theProgramRunsFromTheArchiveAlone() throws Exception {
    Path dir = archive().toAbsolutePath();
    Path script = dir.resolve("bin/pg2lite-follower");
    assertTrue(Files.isExecutable(script), script + " is executable");
    List<String> jars;
    try (Stream<Path> lib = Files.list(dir.resolve("lib"))) {
      jars = lib.map(p -> p.getFileName().toString()).toList();
    }
    assertTrue(jars.stream().anyMatch(j -> j.startsWith("kafka-clients-")), "the Kafka client comes along: " + jars);
    assertTrue(jars.stream().anyMatch(j -> j.startsWith("slf4j-simple-")), "a logging binding: " + jars);
    assertTrue(jars.stream().anyMatch(j -> j.startsWith("pg2lite-replica-core-")), jars.toString());
    assertFalse(jars.stream().anyMatch(j -> j.startsWith("connect-") || j.startsWith("debezium")),
        "nothing of Connect or Debezium: " + jars);
    String readme = Files.readString(dir.resolve("README.md"));
    assertFalse(readme.contains("${"), "the README is filtered");
    assertTrue(Files.exists(dir.resolve("doc/follower.md")) && Files.exists(dir.resolve("doc/config-follower.md")));
    java.util.regex.Matcher link = java.util.regex.Pattern.compile("\\]\\(([^)#\\s]+)(#[^)]*)?\\)")
        .matcher(Files.readString(dir.resolve("doc/follower.md")));
    while (link.find()) {
      if (!link.group(1).matches("[a-z]+:.*")) {
        assertTrue(Files.exists(dir.resolve("doc").resolve(link.group(1))), "doc/follower.md links to "
            + link.group(1) + ", which is not in the archive");
      }
    }

    Run help = run(script, "--help");
    assertEquals(0, help.code, help.out);
    assertTrue(help.out.contains("follow") && help.out.contains("restore") && help.out.contains("status"), help.out);

    Path replica = Files.createTempDirectory("pg2lite-archive").resolve("r.db");
    Run status = run(script, "status", "--config", dir.resolve("etc/follower.properties").toString(),
        "replica.path=" + replica, "kafka.bootstrap.servers=127.0.0.1:1");
    assertEquals(0, status.code, status.out);
    assertTrue(status.out.contains(replica.toAbsolutePath() + " (missing)") && status.out.contains("nothing applied"),
        status.out);

    Run bad = run(script, "follow", "replica.path=" + replica);
    assertEquals(2, bad.code, bad.out);
    assertTrue(bad.out.contains("topic"), bad.out);
  }

  private record Run(int code, String out) {}

  private static Run run(Path script, String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of(script.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    return new Run(p.exitValue(), out);
  }
}
