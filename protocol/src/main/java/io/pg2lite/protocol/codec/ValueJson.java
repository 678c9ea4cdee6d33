package io.pg2lite.protocol.codec;

import com.fasterxml.jackson.core.JsonGenerator;
import io.pg2lite.protocol.value.Value;
import java.io.IOException;

/**
 * The JSON form of one column value (protocol.md, "Values"), written in one place: by the codec
 * for the change log, and by the sink for the values it stores as JSON text (arrays, row keys).
 *
 * <p>SQL NULL is {@code null}, a bool {@code true}/{@code false}, an integer its decimal digits
 * (exact to 64 bits), a float Java's {@link Double#toString} (which parses back to the same
 * double; non-finite floats never get here, {@link Value.Float} refuses them), text a JSON string,
 * an array a JSON array of its elements. How a string's characters are escaped is the
 * generator's business, not this rule's: the change log and the replica's stored texts escape
 * control characters differently (see the sink's {@code LiteValues}), and each keeps its own
 * form because texts already written are compared byte for byte.
 */
public final class ValueJson {
  private ValueJson() {}

  /** Writes {@code v} as the next value of {@code gen}. */
  public static void write(JsonGenerator gen, Value v) throws IOException {
    if (v instanceof Value.Null) {
      gen.writeNull();
    } else if (v instanceof Value.Bool b) {
      gen.writeBoolean(b.value());
    } else if (v instanceof Value.Int i) {
      gen.writeNumber(i.value());
    } else if (v instanceof Value.Float f) {
      gen.writeNumber(f.value());
    } else if (v instanceof Value.Text t) {
      gen.writeString(t.value());
    } else if (v instanceof Value.Array a) {
      gen.writeStartArray();
      for (Value e : a.elements()) {
        write(gen, e);
      }
      gen.writeEndArray();
    } else {
      throw new IllegalStateException("unhandled " + v.getClass().getName());
    }
  }
}
