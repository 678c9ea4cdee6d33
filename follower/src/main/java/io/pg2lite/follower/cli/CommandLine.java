package io.pg2lite.follower.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The program's arguments: {@code <command> [--config FILE] [key=value ...]}. Settings come from
 * the file first, then the {@code key=value} flags (a flag wins), so one file can serve several
 * followers that differ in a key or two. Values may use {@code ${env:NAME}}, as Connect's
 * {@code EnvVarConfigProvider} does, so secrets stay out of the file.
 */
record CommandLine(String command, Map<String, String> settings) {
  static final List<String> COMMANDS = List.of("follow", "restore", "status");

  static CommandLine parse(String[] args) throws UsageException {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
      throw new UsageException(null);
    }
    String command = args[0];
    if (!COMMANDS.contains(command)) {
      throw new UsageException("unknown command '" + command + "'");
    }
    Map<String, String> settings = new LinkedHashMap<>();
    Map<String, String> flags = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--config") || a.equals("-c")) {
        if (i + 1 >= args.length) {
          throw new UsageException("--config needs a file");
        }
        settings.putAll(read(Path.of(args[++i])));
      } else if (a.startsWith("--config=")) {
        settings.putAll(read(Path.of(a.substring("--config=".length()))));
      } else if (a.contains("=") && !a.startsWith("=")) {
        String key = a.substring(0, a.indexOf('=')).replaceFirst("^--", "");
        flags.put(key, a.substring(a.indexOf('=') + 1));
      } else {
        throw new UsageException("'" + a + "' is neither --config FILE nor key=value");
      }
    }
    settings.putAll(flags);
    settings.replaceAll((k, v) -> expand(k, v));
    return new CommandLine(command, settings);
  }

  private static Map<String, String> read(Path file) throws UsageException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException e) {
      throw new UsageException("cannot read the settings file " + file.toAbsolutePath() + ": " + e.getMessage());
    }
    Map<String, String> out = new LinkedHashMap<>();
    p.stringPropertyNames().forEach(k -> out.put(k, p.getProperty(k).trim()));
    return out;
  }

  /** Replaces {@code ${env:NAME}} with the environment's value; a variable that is not set is an error. */
  static String expand(String key, String value) {
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (true) {
      int start = value.indexOf("${env:", at);
      if (start < 0) {
        return out.append(value.substring(at)).toString();
      }
      int end = value.indexOf('}', start);
      if (end < 0) {
        return out.append(value.substring(at)).toString();
      }
      String name = value.substring(start + 6, end);
      String v = System.getenv(name);
      if (v == null) {
        throw new IllegalArgumentException(key + ": the environment variable " + name + " is not set");
      }
      out.append(value, at, start).append(v);
      at = end + 1;
    }
  }

  /** Wrong arguments: the message (or none, for --help) and the usage are printed. */
  static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }
}
