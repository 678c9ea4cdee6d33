package io.pg2lite.sink;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The plugin version, from the build (a Maven-filtered resource). */
public final class Version {
  private static final String VERSION = load();

  private Version() {}

  public static String get() {
    return VERSION;
  }

  private static String load() {
    try (InputStream in = Version.class.getResourceAsStream("/io/pg2lite/sink/version.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
