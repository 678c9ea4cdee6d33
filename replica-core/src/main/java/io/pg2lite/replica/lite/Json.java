package io.pg2lite.replica.lite;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import io.pg2lite.protocol.schema.TableMetadata;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The small JSON texts the replica's metadata tables hold, written and read with Jackson's
 * streaming API so that any name Postgres allows (a tab, a newline, a quote) gives valid JSON.
 *
 * <p>Reading accepts raw control characters inside strings: replicas written before this class
 * used Jackson hold them unescaped. For every other name the text is byte for byte what those
 * versions wrote ({@code ["a","b"]}, no spaces), so stored texts still compare equal.
 */
public final class Json {
  private static final JsonFactory FACTORY = JsonFactory.builder()
      .enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS).build();

  private Json() {}

  /** Writes one JSON value with {@code body} and returns its text. */
  private static String write(Writer body) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return out.toString();
  }

  /** What {@link #write} runs. */
  private interface Writer {
    void write(JsonGenerator g) throws IOException;
  }

  public static String stringList(List<String> values) {
    return write(g -> {
      g.writeStartArray();
      for (String v : values) {
        g.writeString(v);
      }
      g.writeEndArray();
    });
  }

  public static List<String> stringList(String json) {
    List<String> out = new ArrayList<>();
    try (JsonParser p = FACTORY.createParser(json)) {
      expect(p, JsonToken.START_ARRAY, json);
      for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
        if (t != JsonToken.VALUE_STRING) {
          throw new IllegalArgumentException("not a JSON array of strings: " + json);
        }
        out.add(p.getText());
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("not a JSON array of strings: " + json, e);
    }
    return out;
  }

  /** A flat JSON object of strings, in the map's order. */
  public static String stringMap(Map<String, String> values) {
    return write(g -> {
      g.writeStartObject();
      for (Map.Entry<String, String> e : values.entrySet()) {
        g.writeStringField(e.getKey(), e.getValue());
      }
      g.writeEndObject();
    });
  }

  public static Map<String, String> stringMap(String json) {
    Map<String, String> out = new LinkedHashMap<>();
    try (JsonParser p = FACTORY.createParser(json)) {
      expect(p, JsonToken.START_OBJECT, json);
      for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
        String key = p.currentName();
        if (p.nextToken() != JsonToken.VALUE_STRING) {
          throw new IllegalArgumentException("not a JSON object of strings: " + json);
        }
        out.put(key, p.getText());
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("not a JSON object of strings: " + json, e);
    }
    return out;
  }

  public static String metadata(TableMetadata m) {
    return write(g -> {
      g.writeStartObject();
      g.writeNumberField("schemaOID", m.schemaOid());
      g.writeNumberField("relationOID", m.relationOid());
      g.writeObjectFieldStart("rowKey");
      for (Map.Entry<String, Integer> e : m.rowKey().entrySet()) {
        g.writeObjectFieldStart(e.getKey());
        g.writeNumberField("attNum", e.getValue());
        g.writeEndObject();
      }
      g.writeEndObject();
      g.writeEndObject();
    });
  }

  private static void expect(JsonParser p, JsonToken token, String json) throws IOException {
    if (p.nextToken() != token) {
      throw new IllegalArgumentException("expected " + token + " in " + json);
    }
  }
}
