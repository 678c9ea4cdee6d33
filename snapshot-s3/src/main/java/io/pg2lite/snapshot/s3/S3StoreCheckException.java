package io.pg2lite.snapshot.s3;

import java.io.IOException;

/**
 * The store cannot be used as configured. The message starts with the setting to fix; the caller
 * can also attach it to that setting ({@link #setting()}). Classified once: an unreachable
 * endpoint may come back ({@link #retriable()}), a missing bucket or refused credentials will not.
 */
public final class S3StoreCheckException extends IOException {
  private static final long serialVersionUID = 1L;
  private final String setting;
  private final boolean retriable;

  S3StoreCheckException(String setting, String problem, boolean retriable, Throwable cause) {
    super(setting + ": " + problem, cause);
    this.setting = setting;
    this.retriable = retriable;
  }

  /** The setting (or settings, joined by " / ") to look at. */
  public String setting() {
    return setting;
  }

  /** True when trying again later may succeed (the store could not be reached). */
  public boolean retriable() {
    return retriable;
  }
}
