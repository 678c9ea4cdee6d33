package io.pg2lite.follower.cli;

import io.pg2lite.follower.Follower;
import io.pg2lite.follower.config.FollowerConfig;
import java.io.PrintStream;
import org.apache.kafka.common.config.ConfigException;

/**
 * The follower program: {@code follow} (run until stopped; Ctrl-C or SIGTERM stops it cleanly),
 * {@code restore} (build the replica from the newest snapshot and exit), {@code status} (where the
 * replica is). Exit codes: 0 done, 1 failed (the message says why), 2 wrong arguments or settings;
 * a {@code follow} stopped by a signal exits as the JVM does (130, 143) once stopped cleanly.
 */
public final class FollowerMain {
  static final String USAGE = """
      Usage: pg2lite-follower <command> [--config FILE] [key=value ...]

      Commands:
        follow    keep the replica in sync with the change log until stopped (Ctrl-C stops it cleanly)
        restore   build the replica from the newest usable snapshot and exit (a present replica is left alone)
        status    print the replica's watermark, offset, lag and the snapshot it came from

      Settings come from the properties FILE, then from key=value arguments (which win); ${env:NAME} in a
      value reads the environment. Required: topic, kafka.bootstrap.servers, replica.path. Other Kafka client
      settings go in kafka.* keys (kafka.security.protocol=SASL_SSL, ...). All settings: doc/config-follower.md.
      """;

  private FollowerMain() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs one command; returns the exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    CommandLine line;
    try {
      line = CommandLine.parse(args);
    } catch (CommandLine.UsageException e) {
      if (e.getMessage() != null) {
        err.println("pg2lite-follower: " + e.getMessage());
      }
      (e.getMessage() == null ? out : err).print(USAGE);
      return e.getMessage() == null ? 0 : 2;
    } catch (IllegalArgumentException e) {
      err.println("pg2lite-follower: " + e.getMessage());
      return 2;
    }
    FollowerConfig config;
    try {
      config = new FollowerConfig(line.settings());
    } catch (ConfigException e) {
      err.println("pg2lite-follower: invalid settings: " + e.getMessage());
      return 2;
    }
    try {
      return switch (line.command()) {
        case "follow" -> follow(config, out, err);
        case "restore" -> Commands.restore(config, out, err);
        default -> Commands.status(config, out);
      };
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } catch (RuntimeException e) {
      err.println("pg2lite-follower: " + e.getMessage());
      return 1;
    }
  }

  private static int follow(FollowerConfig config, PrintStream out, PrintStream err) throws InterruptedException {
    Follower follower = Follower.start(config);
    // Ctrl-C and SIGTERM: the JVM exits with 130 or 143 as usual, after this hook stops the follower cleanly.
    Thread stopper = new Thread(() -> {
      follower.close();
      if (follower.state() == Follower.State.STOPPED) {
        out.println("Stopped cleanly: replica at watermark " + follower.position().watermark() + ", offset "
            + follower.position().offset());
        out.flush();
      }
    }, "pg2lite-follower-shutdown");
    Runtime.getRuntime().addShutdownHook(stopper);
    out.println("Following " + config.topic + " into " + config.replica.replicaPath + " as " + config.name
        + follower.restoredFrom().stream().mapToObj(o -> " (restored from the snapshot at offset " + o + ")")
            .findFirst().orElse(""));
    follower.awaitEnd();
    if (follower.state() == Follower.State.FAILED) {
      err.println("pg2lite-follower: " + follower.failure().map(Throwable::getMessage).orElse("failed"));
      return 1;
    }
    return 0;
  }
}
