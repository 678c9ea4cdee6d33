package io.pg2lite.connect;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version both plugins report to Connect, from the build (a Maven-filtered resource). */
public final class PluginVersion {
  private static final String VERSION = load();

  private PluginVersion() {}

  public static String get() {
    return VERSION;
  }

  private static String load() {
    try (InputStream in = PluginVersion.class.getResourceAsStream("/io/pg2lite/connect/version.properties")) {
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
