package io.pg2lite.protocol.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.watermark.Watermark;
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
  /**
   * Jackson's default limits (a 20-million-character string, 1,000-digit numbers) are below what
   * Postgres stores (1 GB values): the log carries any value, so a string or a number is limited
   * only by memory. Depth stays bounded (Postgres arrays have at most 6 dimensions).
   */
  private final JsonFactory factory = JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .streamReadConstraints(StreamReadConstraints.builder()
          .maxStringLength(Integer.MAX_VALUE)
          .maxNumberLength(Integer.MAX_VALUE)
          .build())
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

  /** Writes the record value for {@code entry} to {@code out} (a large entry's segmented buffer). */
  public void encode(ChangeLogEntry entry, java.io.OutputStream out) {
    try (JsonGenerator gen = factory.createGenerator(out)) {
      new EntryWriter(gen).write(entry);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot encode change-log entry", e);
    }
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

  /**
   * Decodes the JSON of a message alone ({@code {"tag":...}}), as the joined parts of a split
   * message hold it (docs/protocol.md, "Large messages").
   */
  public Message decodeMessage(byte[] json, int offset, int length) {
    try (JsonParser parser = factory.createParser(json, offset, length)) {
      try {
        return new EntryReader(parser).messageOnly();
      } catch (JsonProcessingException e) {
        throw new ProtocolException("/message" + parser.getParsingContext().pathAsPointer().toString(),
            "malformed JSON: " + e.getOriginalMessage(), e);
      }
    } catch (IOException e) {
      throw new ProtocolException("/message", "malformed JSON: " + e.getMessage(), e);
    }
  }

  /**
   * The record value of one part of a split message: {@code length} bytes of the message's UTF-8
   * JSON from {@code offset}, written as the part's {@code text} (escaped as JSON) without first
   * becoming a Java string.
   */
  public byte[] encodePart(Watermark watermark, long pos, int index, int count, long size, byte[] utf8, int offset,
      int length) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(length + length / 8 + 160);
    try (JsonGenerator gen = factory.createGenerator(out)) {
      gen.writeStartObject();
      gen.writeNumberField("v", ChangeLogEntry.PROTOCOL_VERSION);
      gen.writeStringField("watermark", watermark.toString());
      gen.writeNumberField("pos", pos);
      gen.writeFieldName("message");
      gen.writeStartObject();
      gen.writeStringField("tag", "part");
      gen.writeNumberField("index", index);
      gen.writeNumberField("count", count);
      gen.writeNumberField("size", size);
      gen.writeFieldName("text");
      gen.writeUTF8String(utf8, offset, length);
      gen.writeEndObject();
      gen.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot encode a change-log part", e);
    }
    return out.toByteArray();
  }

  /** Decodes one record value given as a string. */
  public ChangeLogEntry decode(String value) {
    return decode(value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }
}
