package io.pg2lite.quickstart;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * Prints each start-up step as it begins and how long it took, so a slow step never looks hung.
 * While a step runs, {@code System.out} and {@code System.err} are silenced: the servers it starts
 * print their own lines there (Kafka's storage-format dump, its controller's start-up warning),
 * which would break the step's line. A step that fails still says why: its exception propagates.
 */
final class Progress {
  private final PrintStream out;

  Progress(PrintStream out) {
    this.out = out;
  }

  <T> T step(String what, Callable<T> action) throws Exception {
    out.print("  … " + what);
    out.flush();
    long t0 = System.nanoTime();
    PrintStream console = System.out;
    PrintStream errors = System.err;
    System.setOut(new PrintStream(java.io.OutputStream.nullOutputStream()));
    System.setErr(new PrintStream(java.io.OutputStream.nullOutputStream()));
    T result;
    try {
      result = action.call();
    } finally {
      System.setOut(console);
      System.setErr(errors);
    }
    out.printf(" (%.1f s)%n", (System.nanoTime() - t0) / 1e9);
    return result;
  }

  void say(String line) {
    out.println(line);
  }
}
