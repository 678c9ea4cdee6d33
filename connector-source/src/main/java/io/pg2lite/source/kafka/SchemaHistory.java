package io.pg2lite.source.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pg2lite.connect.kafka.ChangeLogPartition;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.schema.DdlDetection;
import io.pg2lite.source.schema.PublishedSchemaParser;
import io.pg2lite.source.schema.PublishedSchemaWriter;
import io.pg2lite.source.schema.RecordedSchema;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The schema history topic (ADR 0028): the tracked schema as of each commit that changed it, so a
 * restart resumes with the schema of its stored commit. The stream resumes after that commit, so
 * the rows that follow were written under that schema, whatever the catalog says now.
 *
 * <p>A schema is written with the source's records, before the commit it belongs to, under the same
 * source partition: with exactly-once delivery in the commit's Kafka transaction, at least once
 * ahead of it (Connect stores an offset only once every record before it under the partition is
 * acknowledged). A commit whose offset is stored therefore always finds its schema. Schemas of
 * commits whose offsets were never stored are skipped by their watermark; ones written again after
 * a restart are equal, and the last wins.
 *
 * <p>A record is one schema, or one part of it when its compressed JSON passes the record limit:
 * headers name the source ({@value #SOURCE}: database and slot, so a topic shared by mistake mixes
 * nothing), the commit ({@value #AT}) and the part ({@value #PART}, {@code i/n}). The value is the
 * gzip of {@code {"at", "replicaVersion", "schema", "describedBy"}}. The topic keeps everything
 * (one record per schema change; a restart reads back from the end only as far as its commit).
 */
public final class SchemaHistory {
  static final String SOURCE = "pg2lite.source";
  static final String AT = "pg2lite.schema.at";
  static final String PART = "pg2lite.schema.part";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String topic;
  private final String source;
  private final Map<String, ?> partition;
  private final int valueLimit;

  /**
   * @param source the source's identity in the topic ({@code database/slot})
   * @param partition the source partition the records are written under
   */
  public SchemaHistory(String topic, String source, Map<String, ?> partition, int valueLimit) {
    this.topic = topic;
    this.source = source;
    this.partition = partition;
    this.valueLimit = valueLimit;
  }

  /** The records of {@code schema}, with {@code offset} (the position of the commit's other records). */
  List<SourceRecord> records(RecordedSchema schema, Map<String, ?> offset) {
    byte[] value = encode(schema);
    int parts = Math.max(1, (value.length + valueLimit - 1) / valueLimit);
    List<SourceRecord> out = new ArrayList<>(parts);
    for (int i = 0; i < parts; i++) {
      ConnectHeaders headers = new ConnectHeaders();
      headers.addString(SOURCE, source);
      headers.addString(AT, schema.at().toString());
      headers.addString(PART, i + "/" + parts);
      byte[] part = Arrays.copyOfRange(value, i * valueLimit, Math.min(value.length, (i + 1) * valueLimit));
      out.add(new ChangeLogRecord(partition, offset, topic, Schema.BYTES_SCHEMA, part, headers));
    }
    return out;
  }

  /**
   * The newest schema of this source recorded at or before {@code commit} in lineage
   * {@code replicaVersion}, or empty when the topic holds none.
   */
  public Optional<RecordedSchema> atOrBefore(ChangeLogPartition reader, Watermark replicaVersion, Watermark commit) {
    return reader.searchFromEnd(new TopicPartition(topic, 0), window -> latest(window, source, replicaVersion, commit));
  }

  /** The newest complete schema of {@code source} in {@code records} at or before {@code commit} of the lineage. */
  static Optional<RecordedSchema> latest(List<ConsumerRecord<byte[], byte[]>> records, String source,
      Watermark replicaVersion, Watermark commit) {
    // Parts of one schema are consecutive: the source writes them one after another.
    RecordedSchema best = null;
    List<byte[]> parts = new ArrayList<>();
    String partsAt = null;
    for (ConsumerRecord<byte[], byte[]> r : records) {
      String at = header(r, AT);
      String[] part = String.valueOf(header(r, PART)).split("/");
      if (!source.equals(header(r, SOURCE)) || r.value() == null || at == null || part.length != 2) {
        continue;
      }
      int index = Integer.parseInt(part[0]);
      if (index == 0) {
        parts.clear();
        partsAt = at;
      } else if (!at.equals(partsAt) || parts.size() != index) {
        parts.clear();
        partsAt = null;
        continue;
      }
      parts.add(r.value());
      if (parts.size() == Integer.parseInt(part[1])) {
        RecordedSchema s = decode(join(parts));
        if (s.replicaVersion().equals(replicaVersion) && !s.at().isAfter(commit)
            && (best == null || !best.at().isAfter(s.at()))) {
          best = s;
        }
        parts.clear();
        partsAt = null;
      }
    }
    return Optional.ofNullable(best);
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
    Header h = r.headers().lastHeader(key);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static byte[] join(List<byte[]> parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    parts.forEach(out::writeBytes);
    return out.toByteArray();
  }

  static byte[] encode(RecordedSchema schema) {
    ObjectNode root = JSON.createObjectNode();
    root.put("at", schema.at().toString());
    root.put("replicaVersion", schema.replicaVersion().toString());
    root.set("schema", PublishedSchemaWriter.toJson(schema.schema()));
    ObjectNode described = root.putObject("describedBy");
    schema.describedBy().forEach((oid, xid) -> described.put(Long.toString(oid), xid));
    ObjectNode membership = root.putObject("membership");
    schema.membership().forEach((oid, token) -> membership.put(Long.toString(oid), token));
    root.put("detection", schema.detection().configName());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
      JSON.writeValue(gz, root);
    } catch (IOException e) {
      throw new IllegalStateException("cannot compress a schema in memory", e);
    }
    return bytes.toByteArray();
  }

  static RecordedSchema decode(byte[] value) {
    JsonNode root;
    try (GZIPInputStream gz = new GZIPInputStream(new ByteArrayInputStream(value))) {
      root = JSON.readTree(gz);
    } catch (IOException e) {
      throw new IllegalArgumentException("schema history record is not gzip'd JSON: " + e.getMessage(), e);
    }
    Map<Long, Long> described = new HashMap<>();
    root.path("describedBy").fields().forEachRemaining(f -> described.put(Long.valueOf(f.getKey()),
        f.getValue().asLong()));
    Map<Long, Long> membership = new HashMap<>();
    root.path("membership").fields().forEachRemaining(f -> membership.put(Long.valueOf(f.getKey()),
        f.getValue().asLong()));
    DdlDetection detection = DdlDetection.REPLICATION_STREAM.configName().equals(root.path("detection").asText())
        ? DdlDetection.REPLICATION_STREAM : DdlDetection.EVENT_TRIGGERS;
    return new RecordedSchema(Watermark.parse(root.path("at").asText()),
        Watermark.parse(root.path("replicaVersion").asText()), PublishedSchemaParser.parse(root.path("schema")),
        described, membership, detection);
  }
}
