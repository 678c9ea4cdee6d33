package io.pg2lite.replica.lineage;

/**
 * A new lineage the sink cannot follow by itself: its start is gone from the topic, or its build
 * cannot be put in place. A permanent fault; the message names the files and versions and what to
 * do. Nothing committed to either replica is lost.
 */
public final class LineageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  LineageException(String message, Throwable cause) {
    super(message, cause);
  }
}
