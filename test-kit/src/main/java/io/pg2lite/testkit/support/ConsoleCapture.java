package io.pg2lite.testkit.support;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What reaches {@code System.err} while it is open, still printed as before: the log of a worker
 * that runs in the test JVM ({@code ConnectWorker}; slf4j-simple writes to whatever
 * {@code System.err} is at each line), for a test that asserts what the worker logged.
 */
public final class ConsoleCapture implements AutoCloseable {
  private final PrintStream original;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  private ConsoleCapture() {
    this.original = System.err;
    System.setErr(new PrintStream(original, true, StandardCharsets.UTF_8) {
      @Override
      public void write(int b) {
        super.write(b);
        synchronized (captured) {
          captured.write(b);
        }
      }

      @Override
      public void write(byte[] buf, int off, int len) {
        super.write(buf, off, len);
        synchronized (captured) {
          captured.write(buf, off, len);
        }
      }
    });
  }

  /** Captures {@code System.err} until {@link #close}. */
  public static ConsoleCapture stderr() {
    return new ConsoleCapture();
  }

  /** Everything captured so far. */
  public String text() {
    synchronized (captured) {
      return captured.toString(StandardCharsets.UTF_8);
    }
  }

  /** The captured lines that contain every one of {@code parts}. */
  public java.util.List<String> linesWith(String... parts) {
    return text().lines().filter(l -> java.util.Arrays.stream(parts).allMatch(l::contains)).toList();
  }

  /** Puts the original {@code System.err} back. */
  @Override
  public void close() {
    System.setErr(original);
  }
}
