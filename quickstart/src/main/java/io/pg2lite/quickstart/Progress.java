package io.pg2lite.quickstart;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/** Prints each start-up step as it begins and how long it took, so a slow step never looks hung. */
final class Progress {
  private final PrintStream out;

  Progress(PrintStream out) {
    this.out = out;
  }

  <T> T step(String what, Callable<T> action) throws Exception {
    out.print("  … " + what);
    out.flush();
    long t0 = System.nanoTime();
    T result = action.call();
    out.printf(" (%.1f s)%n", (System.nanoTime() - t0) / 1e9);
    return result;
  }

  void say(String line) {
    out.println(line);
  }
}
