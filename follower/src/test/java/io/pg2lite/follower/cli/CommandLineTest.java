package io.pg2lite.follower.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandLineTest {
  @TempDir
  Path dir;

  @Test
  void flagsWinOverTheFile() throws Exception {
    Path file = dir.resolve("f.properties");
    Files.writeString(file, "topic=log\nreplica.path=/a.db\n");
    CommandLine line = CommandLine.parse(new String[] {"follow", "--config", file.toString(), "replica.path=/b.db"});
    assertEquals("follow", line.command());
    assertEquals("/b.db", line.settings().get("replica.path"));
    assertEquals("log", line.settings().get("topic"));
  }

  @Test
  void anUnsetEnvironmentVariableIsNamed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CommandLine.expand("kafka.sasl.jaas.config", "password=${env:PG2LITE_SURELY_UNSET_VAR}"));
    assertTrue(e.getMessage().contains("PG2LITE_SURELY_UNSET_VAR") && e.getMessage().contains("kafka.sasl"),
        e.getMessage());
    assertEquals("a" + System.getenv("PATH") + "b", CommandLine.expand("k", "a${env:PATH}b"));
  }

  @Test
  void wrongArgumentsAndBadSettingsExitWith2NamingWhatIsWrong() {
    assertEquals(2, run("sync").code);
    assertTrue(run("sync").err.contains("unknown command 'sync'"));
    Run r = run("follow", "topic=log", "replica.path=/tmp/x.db");
    assertEquals(2, r.code);
    assertTrue(r.err.contains("kafka.bootstrap.servers"), r.err);
    Run missing = run("status", "--config", dir.resolve("nope.properties").toString());
    assertEquals(2, missing.code);
    assertTrue(missing.err.contains("nope.properties"), missing.err);
    Run help = run("--help");
    assertEquals(0, help.code);
    assertTrue(help.out.contains("follow") && help.out.contains("restore") && help.out.contains("status"));
  }

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = FollowerMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
