package io.pg2lite.replica.snapshot;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * What a snapshot holds, published beside its data: the replica position it was taken at (the
 * {@code _pg2lite.state} row inside the data, read back from the copy itself, so the two cannot
 * disagree) and the data's size and SHA-256. A restore trusts the data only when both match.
 *
 * <p>{@code id} names the snapshot in its store; it starts with the zero-padded offset, so the
 * names of one change log sort oldest first.
 *
 * @param offset the Kafka offset of the last commit record applied in the snapshot
 * @param seq that record's sequence number (null when the log carried none)
 */
public record SnapshotManifest(String id, String replicaVersion, String watermark, String topic, int partition,
    long offset, Long seq, long bytes, String sha256, Instant createdAt) {
  /** Format of the manifest itself; a reader skips manifests of a newer format. */
  public static final int FORMAT = 1;
  private static final JsonFactory JSON = new JsonFactory();

  public SnapshotManifest withId(String newId) {
    return new SnapshotManifest(newId, replicaVersion, watermark, topic, partition, offset, seq, bytes, sha256,
        createdAt);
  }

  /** True when this snapshot can start a replica that then reads {@code topic} from {@code logStart} on. */
  public boolean coveredBy(long logStart) {
    return offset + 1 >= logStart;
  }

  public byte[] toJson() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeNumberField("format", FORMAT);
      g.writeStringField("id", id);
      g.writeStringField("replicaVersion", replicaVersion);
      g.writeStringField("watermark", watermark);
      g.writeStringField("topic", topic);
      g.writeNumberField("partition", partition);
      g.writeNumberField("offset", offset);
      if (seq != null) {
        g.writeNumberField("seq", seq);
      }
      g.writeNumberField("bytes", bytes);
      g.writeStringField("sha256", sha256);
      g.writeStringField("createdAt", createdAt.toString());
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Parses a manifest; throws {@link CorruptSnapshotException} naming what is missing or wrong. */
  public static SnapshotManifest fromJson(String where, byte[] json) throws CorruptSnapshotException {
    Map<String, Object> f = new HashMap<>();
    try (JsonParser p = JSON.createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new CorruptSnapshotException(where, "manifest is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        f.put(name, t == JsonToken.VALUE_NUMBER_INT ? (Object) p.getLongValue() : p.getValueAsString());
      }
    } catch (IOException e) {
      throw new CorruptSnapshotException(where, "manifest is not valid JSON: " + e.getMessage());
    }
    Object format = f.get("format");
    if (!(format instanceof Long v) || v > FORMAT) {
      throw new CorruptSnapshotException(where, "manifest format " + format + " is not one this sink reads (" + FORMAT
          + ")");
    }
    try {
      return new SnapshotManifest(text(f, "id"), text(f, "replicaVersion"), text(f, "watermark"), text(f, "topic"),
          (int) number(f, "partition"), number(f, "offset"), f.get("seq") instanceof Long s ? s : null,
          number(f, "bytes"), text(f, "sha256"), Instant.parse(text(f, "createdAt")));
    } catch (IllegalArgumentException | java.time.format.DateTimeParseException e) {
      throw new CorruptSnapshotException(where, "manifest: " + e.getMessage());
    }
  }

  private static String text(Map<String, Object> f, String name) {
    if (!(f.get(name) instanceof String s) || s.isEmpty()) {
      throw new IllegalArgumentException("field " + name + " missing or not text");
    }
    return s;
  }

  private static long number(Map<String, Object> f, String name) {
    if (!(f.get(name) instanceof Long n)) {
      throw new IllegalArgumentException("field " + name + " missing or not a whole number");
    }
    return n;
  }

  /** The manifest's JSON as text, for logs. */
  @Override
  public String toString() {
    return new String(toJson(), StandardCharsets.UTF_8);
  }
}
