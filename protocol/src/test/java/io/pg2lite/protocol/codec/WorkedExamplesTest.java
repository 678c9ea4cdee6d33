package io.pg2lite.protocol.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.MessageKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The worked examples in docs/protocol.md are real records: each decodes with the strict codec,
 * and the three transactions have the shapes the text describes.
 */
class WorkedExamplesTest {
  private static final Path DOC = Path.of("..", "docs", "protocol.md");

  /** The example records: lines starting with {"v": and their indented continuation lines. */
  private static List<String> records() throws Exception {
    String text = Files.readString(DOC);
    String section = text.substring(text.indexOf("### Worked examples"), text.indexOf("## Watermarks"));
    List<String> out = new ArrayList<>();
    StringBuilder current = null;
    for (String line : section.split("\n")) {
      if (line.startsWith("{\"v\":")) {
        if (current != null) {
          out.add(current.toString());
        }
        current = new StringBuilder(line);
      } else if (current != null && line.startsWith("  ")) {
        current.append(line.strip());
      } else if (current != null) {
        out.add(current.toString());
        current = null;
      }
    }
    return out;
  }

  @Test
  void everyWorkedExampleDecodes() throws Exception {
    ChangeLogCodec codec = new ChangeLogCodec();
    List<ChangeLogEntry> entries = new ArrayList<>();
    for (String r : records()) {
      entries.add(codec.decode(r.getBytes(StandardCharsets.UTF_8)));
    }
    assertEquals(12, entries.size(), "live (4), backfill (4), rollback (3) and the repeated begin");
    assertEquals(MessageKind.COMMIT, entries.get(3).kind());
    assertTrue(entries.get(4).watermark().isAfter(entries.get(3).watermark()), "backfill after the commit");
    assertEquals(MessageKind.ROLLBACK, entries.get(10).kind());
  }
}
