package io.pg2lite.testkit.support;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * An SLF4J logger that keeps what it is told, each line as "LEVEL message" (arguments filled
 * in, a throwable left out), for a unit test that asserts what a class logs and how often.
 * Every level is enabled.
 */
public final class RecordingLogger extends AbstractLogger {
  private static final long serialVersionUID = 1L;
  private final List<String> lines = new ArrayList<>();

  /** Every line so far, oldest first. */
  public synchronized List<String> lines() {
    return List.copyOf(lines);
  }

  /** The lines at {@code level}, oldest first. */
  public synchronized List<String> at(Level level) {
    return lines.stream().filter(l -> l.startsWith(level + " ")).collect(Collectors.toList());
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected synchronized void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args,
      Throwable t) {
    lines.add(level + " " + MessageFormatter.basicArrayFormat(pattern, args));
  }

  @Override public boolean isTraceEnabled() { return true; }
  @Override public boolean isTraceEnabled(Marker marker) { return true; }
  @Override public boolean isDebugEnabled() { return true; }
  @Override public boolean isDebugEnabled(Marker marker) { return true; }
  @Override public boolean isInfoEnabled() { return true; }
  @Override public boolean isInfoEnabled(Marker marker) { return true; }
  @Override public boolean isWarnEnabled() { return true; }
  @Override public boolean isWarnEnabled(Marker marker) { return true; }
  @Override public boolean isErrorEnabled() { return true; }
  @Override public boolean isErrorEnabled(Marker marker) { return true; }
}
