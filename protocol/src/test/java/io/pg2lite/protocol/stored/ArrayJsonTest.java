package io.pg2lite.protocol.stored;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.protocol.value.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The stored JSON text of arrays and row keys must stay byte for byte what replicas already hold:
 * row keys in {@code _pg2lite.changes} are looked up by their text, and readers compare array
 * values. {@link #storedForm} is the sink's own writer as it was before it used the protocol's
 * {@code ValueJson}; the current one must agree with it on every value.
 */
class ArrayJsonTest {
  /** The stored form as first written (a hand-rolled writer): the oracle. */
  private static String storedForm(Value.Array a) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < a.elements().size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      Value e = a.elements().get(i);
      if (e instanceof Value.Null) {
        sb.append("null");
      } else if (e instanceof Value.Bool b) {
        sb.append(b.value());
      } else if (e instanceof Value.Int n) {
        sb.append(n.value());
      } else if (e instanceof Value.Float f) {
        sb.append(f.value());
      } else if (e instanceof Value.Text t) {
        sb.append('"');
        for (char c : t.value().toCharArray()) {
          if (c == '"' || c == '\\') {
            sb.append('\\').append(c);
          } else if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
        sb.append('"');
      } else {
        sb.append(storedForm((Value.Array) e));
      }
    }
    return sb.append(']').toString();
  }

  @Test
  void controlCharactersQuotesAndSupplementaryCharactersAreStoredAsBefore() {
    StringBuilder controls = new StringBuilder();
    for (char c = 0; c < 0x20; c++) {
      controls.append(c);
    }
    Value.Array a = new Value.Array(List.of(new Value.Text(controls.toString()),
        new Value.Text("q\"b\\s/ é € \uD83D\uDE00 \u007f \u2028"), new Value.Float(-0.0), new Value.Float(1e300),
        new Value.Int(Long.MIN_VALUE), new Value.Bool(false), new Value.Null(),
        new Value.Array(List.of(new Value.Array(List.of())))));
    assertEquals(storedForm(a), StoredForm.arrayJson(a));
    assertEquals("[\"\\u0009\\u000a\\u001f\",\"\uD83D\uDE00\"]", StoredForm.arrayJson(new Value.Array(List.of(
        new Value.Text("\t\n\u001f"), new Value.Text("\uD83D\uDE00")))), "lower-case \\u escapes, no short ones");
  }

  @Test
  void randomValuesAreStoredAsBefore() {
    Random r = new Random(12);
    for (int i = 0; i < 20_000; i++) {
      Value.Array a = randomArray(r, 0);
      assertEquals(storedForm(a), StoredForm.arrayJson(a));
    }
  }

  private static Value.Array randomArray(Random r, int depth) {
    List<Value> out = new ArrayList<>();
    for (int n = r.nextInt(4); n > 0; n--) {
      switch (r.nextInt(depth < 2 ? 6 : 5)) {
        case 0 -> out.add(new Value.Null());
        case 1 -> out.add(new Value.Bool(r.nextBoolean()));
        case 2 -> out.add(new Value.Int(r.nextLong()));
        case 3 -> {
          double d = r.nextBoolean() ? Double.longBitsToDouble(r.nextLong()) : r.nextGaussian() * 1e6;
          out.add(new Value.Float(Double.isFinite(d) ? d : 0.5));
        }
        case 4 -> out.add(new Value.Text(randomText(r)));
        default -> out.add(randomArray(r, depth + 1));
      }
    }
    return new Value.Array(out);
  }

  private static String randomText(Random r) {
    StringBuilder sb = new StringBuilder();
    for (int n = r.nextInt(8); n > 0; n--) {
      switch (r.nextInt(5)) {
        case 0 -> sb.append((char) r.nextInt(0x20));
        case 1 -> sb.append("\"\\/".charAt(r.nextInt(3)));
        case 2 -> sb.append((char) (0x20 + r.nextInt(0x60)));
        case 3 -> sb.append((char) (0xA0 + r.nextInt(0xD000)));
        default -> sb.appendCodePoint(0x10000 + r.nextInt(0xFFFFF));
      }
    }
    return sb.toString();
  }
}
