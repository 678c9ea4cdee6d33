package io.pg2lite.connect;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;

/**
 * The Kafka Connect versions the plugins support, and the check both connectors make at
 * {@code validate()} and {@code start()} and both tasks at {@code start()}.
 *
 * <p>Why a check of our own: the plugins are compiled against the oldest supported Connect API
 * (the {@code connect-compat} module, ADR 0035), but a worker older than that may lack a class or a
 * method they call, and would fail somewhere deep in a task with a {@code NoSuchMethodError} or a
 * {@code NoClassDefFoundError} that names neither the worker's version nor the one needed. This
 * check fails first, saying both.
 *
 * <p>The worker's version is the one its {@code kafka-clients} jar records in
 * {@code kafka/kafka-version.properties}, read through the loader of {@link ConfigDef}: Connect
 * loads {@code org.apache.kafka} classes from the worker's classpath, never from a plugin (and the
 * archives hold none), so that loader is the worker's. Not {@code AppInfoParser.getVersion()},
 * which reads the same file: Kafka 4.4 moved it to an {@code internals} package, the very kind of
 * call this class exists to keep out. Confluent Platform builds
 * report their platform version with a {@code -ccs} or {@code -ce} suffix (7.6.0-ccs is Kafka
 * 3.6); those are mapped back to Kafka's numbering. A version that cannot be read
 * ({@code unknown}, a custom build) is let through: refusing a worker we cannot date would block
 * more than it protects.
 */
public final class WorkerVersion {
  /** The oldest Kafka Connect (major.minor) the plugin archives were tested on: docs/compatibility.md. */
  public static final int MIN_MAJOR = 3;
  public static final int MIN_MINOR = 7;
  /** The range the archives were run on end to end (docs/compatibility.md), quoted in the refusal. */
  public static final String TESTED = "3.7.2, 3.8.1, 3.9.1, 4.0.2, 4.1.2, 4.2.1, 4.3.2, 4.4.0";
  /**
   * The name {@code validate()} reports the refusal under: not a setting of either connector, so
   * Connect lists it as an error of its own rather than on a field the user set correctly.
   */
  public static final String CONFIG_NAME = "kafka.connect.version";

  private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.\\d+)?(.*)");

  private WorkerVersion() {}

  /** The Kafka version of the worker this plugin runs in. */
  public static String running() {
    try (InputStream in = ConfigDef.class.getResourceAsStream("/kafka/kafka-version.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown").trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  /**
   * Why a worker reporting {@code workerVersion} is not supported, or empty when it is (or when
   * its version cannot be read).
   */
  public static Optional<String> problem(String workerVersion) {
    Matcher m = VERSION.matcher(workerVersion == null ? "" : workerVersion.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    int major = Integer.parseInt(m.group(1));
    int minor = Integer.parseInt(m.group(2));
    String suffix = m.group(3);
    String kafka = workerVersion.trim();
    if (suffix.startsWith("-ccs") || suffix.startsWith("-ce")) {
      major -= 4; // Confluent Platform 7.x ships Kafka 3.x, 8.x ships 4.x
      kafka = workerVersion.trim() + " (Kafka " + major + "." + minor + ")";
    }
    if (major > MIN_MAJOR || major == MIN_MAJOR && minor >= MIN_MINOR) {
      return Optional.empty();
    }
    return Optional.of("pg2lite needs Kafka Connect " + MIN_MAJOR + "." + MIN_MINOR + " or newer (tested: "
        + TESTED + "); this worker runs " + kafka + ". Upgrade the Connect worker; see doc/compatibility.md.");
  }

  /** Throws, with {@link #problem}'s message, when this worker is not supported: for {@code start()}. */
  public static void requireSupported() {
    Optional<String> p = problem(running());
    if (p.isPresent()) {
      throw new ConfigException(p.get());
    }
  }

  /**
   * For {@code validate()}: adds the refusal to {@code config} as an error of {@link #CONFIG_NAME}
   * and returns true when this worker is not supported (the caller then skips its live checks,
   * which could hit the very API the worker lacks).
   */
  public static boolean refuseIn(Config config) {
    return refuseIn(config, running());
  }

  static boolean refuseIn(Config config, String workerVersion) {
    Optional<String> p = problem(workerVersion);
    if (p.isEmpty()) {
      return false;
    }
    ConfigValue v = new ConfigValue(CONFIG_NAME);
    v.value(workerVersion);
    v.addErrorMessage(p.get());
    config.configValues().add(v);
    return true;
  }
}
