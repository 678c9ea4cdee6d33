package io.pg2lite.testkit.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Generates a connector's config reference (Markdown) from its {@link ConfigDef}, so the docs
 * are never written by hand. Each connector has a test that fails when its file in docs/ is
 * stale and rewrites it with {@code -Dpg2lite.updateDocs=true}.
 */
public final class ConfigReference {
  private ConfigReference() {}

  public static String markdown(String title, String intro, ConfigDef def) {
    StringBuilder sb = new StringBuilder("# ").append(title).append("\n\n").append(intro).append("\n\n")
        .append("Generated from the connector's `ConfigDef`; do not edit by hand.\n");
    Map<String, List<ConfigDef.ConfigKey>> groups = new LinkedHashMap<>();
    for (ConfigDef.ConfigKey k : def.configKeys().values()) {
      groups.computeIfAbsent(k.group == null ? "Other" : k.group, g -> new ArrayList<>()).add(k);
    }
    for (Map.Entry<String, List<ConfigDef.ConfigKey>> g : groups.entrySet()) {
      sb.append("\n## ").append(g.getKey()).append("\n\n")
          .append("| key | type | default | valid values | importance | description |\n")
          .append("|---|---|---|---|---|---|\n");
      g.getValue().sort((a, b) -> Integer.compare(a.orderInGroup, b.orderInGroup));
      for (ConfigDef.ConfigKey k : g.getValue()) {
        sb.append("| `").append(k.name).append("` | ").append(k.type.name().toLowerCase()).append(" | ")
            .append(defaultText(k)).append(" | ").append(k.validator == null ? "" : cell(k.validator.toString()))
            .append(" | ").append(k.importance.name().toLowerCase()).append(" | ").append(cell(k.documentation))
            .append(" |\n");
      }
    }
    return sb.toString();
  }

  private static String defaultText(ConfigDef.ConfigKey k) {
    if (!k.hasDefault()) {
      return "(required)";
    }
    Object d = k.defaultValue;
    if (d == null || d.toString().isEmpty()) {
      return "\"\"";
    }
    if (k.type == ConfigDef.Type.PASSWORD) {
      return "[hidden]";
    }
    return "`" + (d instanceof List<?> l ? String.join(",", l.stream().map(Object::toString).toList()) : d) + "`";
  }

  private static String cell(String s) {
    return s.replace("|", "\\|").replace("\n", " ");
  }

  /**
   * Compares {@code file} with the generated text; rewrites it when {@code pg2lite.updateDocs}
   * is set. Returns null when up to date, else a message saying how to update it.
   */
  public static String checkOrUpdate(Path file, String generated) throws IOException {
    if (Boolean.getBoolean("pg2lite.updateDocs")) {
      Files.createDirectories(file.getParent());
      Files.writeString(file, generated, StandardCharsets.UTF_8);
      return null;
    }
    if (Files.exists(file) && Files.readString(file, StandardCharsets.UTF_8).equals(generated)) {
      return null;
    }
    return file + " is stale: regenerate it with -Dpg2lite.updateDocs=true and commit the result";
  }
}
