package io.pg2lite.protocol.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.pg2lite.protocol.message.ChangeLogEntry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Encodes and decodes change-log records as UTF-8 JSON, one {@link ChangeLogEntry} per record.
 *
 * <p>The format ({@code docs/protocol.md}, pinned by the golden files in
 * {@code docs/protocol/fixtures/}) is {@code {"v":1,"watermark":W,"pos":N,"message":{"tag":...}}}.
 * Invariant: {@code decode(encode(e)).equals(e)} for every entry, with integers exact to 64
 * bits and absent columns kept apart from null ones. Decoding is strict: unknown tags and fields,
 * duplicate fields, wrong types, an unknown protocol version and trailing content are all
 * rejected with a {@link ProtocolException} naming the field. A lenient decoder would let a
 * replica silently diverge; a strict one stops the sink with a message an operator can act on.
 *
 * <p>Thread-safe: the factory is shared, each call uses its own parser or generator.
 */
public final class ChangeLogCodec {
  private final JsonFactory factory = JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();

  /** The record value for {@code entry}. */
  public byte[] encode(ChangeLogEntry entry) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator gen = factory.createGenerator(out)) {
      new EntryWriter(gen).write(entry);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot encode change-log entry", e);
    }
    return out.toByteArray();
  }

  /** The record value for {@code entry}, as a string. */
  public String encodeToString(ChangeLogEntry entry) {
    return new String(encode(entry), StandardCharsets.UTF_8);
  }

  /** Decodes one record value; throws {@link ProtocolException} for anything malformed. */
  public ChangeLogEntry decode(byte[] value) {
    if (value == null) {
      throw new ProtocolException("/", "record has no value (a tombstone is not a change-log record)");
    }
    try (JsonParser parser = factory.createParser(value)) {
      try {
        return new EntryReader(parser).readEntry();
      } catch (JsonProcessingException e) {
        throw new ProtocolException(parser.getParsingContext().pathAsPointer().toString(),
            "malformed JSON: " + e.getOriginalMessage(), e);
      }
    } catch (IOException e) {
      throw new ProtocolException("/", "malformed JSON: " + e.getMessage(), e);
    }
  }

  /** Decodes one record value given as a string. */
  public ChangeLogEntry decode(String value) {
    return decode(value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }
}
