package io.pg2lite.connect.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The two retry settings both connectors share, defined once so their names, defaults, bounds and
 * wording cannot drift apart; each connector names its own transient faults in the doc.
 * {@link io.pg2lite.connect.failure.Backoff#forRetries} turns them into a policy.
 */
public final class RetrySettings {
  public static final String TIMEOUT_CONFIG = "retry.timeout.ms";
  public static final long TIMEOUT_DEFAULT = 900_000L;
  public static final String BACKOFF_MAX_CONFIG = "retry.backoff.max.ms";
  public static final long BACKOFF_MAX_DEFAULT = 10_000L;

  private RetrySettings() {}

  /**
   * Adds both settings to {@code def}, in {@code group} at positions 1 and 2.
   *
   * @param transientFaults what this connector retries, for the doc ("Postgres restarting, ...")
   * @param onRetry what a retry does first, for the doc ("" when nothing worth saying)
   */
  public static ConfigDef define(ConfigDef def, String group, String transientFaults, String onRetry) {
    return def
        .define(TIMEOUT_CONFIG, Type.LONG, TIMEOUT_DEFAULT, ConfigDef.Range.atLeast(0), Importance.LOW,
            "How long the task retries a transient fault (" + transientFaults + ") before it fails, naming the fault. "
                + onRetry + "Retries wait from 0.5 s, doubling up to " + BACKOFF_MAX_CONFIG
                + "; a success starts the count again.", group, 1, Width.SHORT, "Retry timeout")
        .define(BACKOFF_MAX_CONFIG, Type.LONG, BACKOFF_MAX_DEFAULT, ConfigDef.Range.atLeast(500), Importance.LOW,
            "The longest wait between two attempts after a transient fault.", group, 2, Width.SHORT,
            "Retry backoff max");
  }
}
