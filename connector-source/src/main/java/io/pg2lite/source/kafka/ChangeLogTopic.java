package io.pg2lite.source.kafka;

import io.pg2lite.connect.kafka.ChangeLogPartition;
import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.protocol.watermark.Watermark;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The change-log topic as the source manages it: created with one partition if missing, refused
 * if it has more (the order of the log is the order of its single partition), and read at its
 * tail on start to find a transaction left open by a crash.
 */
public final class ChangeLogTopic {
  private final ChangeLogPartition log;

  public ChangeLogTopic(String bootstrapServers, Map<String, Object> extraClientProps) {
    this.log = new ChangeLogPartition(bootstrapServers, extraClientProps);
  }

  /** Partition count of {@code topic}, or empty when it does not exist. */
  public Optional<Integer> partitions(String topic) {
    try {
      OptionalInt n = log.partitions(topic);
      return n.isPresent() ? Optional.of(n.getAsInt()) : Optional.empty();
    } catch (ExecutionException e) {
      throw new ConnectException("cannot describe topic " + topic + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new org.apache.kafka.common.errors.TimeoutException("no answer from Kafka describing topic " + topic, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted describing topic " + topic, e);
    }
  }

  /**
   * The largest record batch {@code topic} accepts ({@code max.message.bytes}, as the broker
   * applies it: the topic's own setting or the broker's default). For a topic that does not exist
   * yet, the broker default it would be created with ({@code message.max.bytes} of a broker).
   */
  public int maxMessageBytes(String topic) {
    try (Admin admin = Admin.create(log.clientProps())) {
      ConfigResource resource;
      String key;
      if (partitions(topic).isPresent()) {
        resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        key = "max.message.bytes";
      } else {
        int broker = admin.describeCluster().nodes().get(ChangeLogPartition.TIMEOUT_MS, TimeUnit.MILLISECONDS)
            .iterator().next().id();
        resource = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(broker));
        key = "message.max.bytes";
      }
      Config config = admin.describeConfigs(List.of(resource)).all().get(ChangeLogPartition.TIMEOUT_MS,
          TimeUnit.MILLISECONDS).get(resource);
      return Integer.parseInt(config.get(key).value());
    } catch (ExecutionException e) {
      throw new ConnectException("cannot read the record size limit of topic " + topic + ": "
          + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new org.apache.kafka.common.errors.TimeoutException("no answer from Kafka describing the configuration "
          + "of topic " + topic, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted describing topic " + topic, e);
    }
  }

  /**
   * Creates {@code topic} with one partition, delete cleanup and unlimited retention if it is
   * missing (and {@code create} allows), and fails if it exists with more than one partition.
   */
  public void ensure(String topic, boolean create, short replicationFactor) {
    Optional<Integer> partitions = partitions(topic);
    if (partitions.isPresent()) {
      if (partitions.get() != 1) {
        throw new ConnectException("topic " + topic + " has " + partitions.get() + " partitions; the change log "
            + "needs exactly one, because its order is the order of its partition");
      }
      return;
    }
    if (!create) {
      throw new ConnectException("topic " + topic + " does not exist and topic.create is false");
    }
    try (Admin admin = Admin.create(log.clientProps())) {
      NewTopic t = new NewTopic(topic, Optional.of(1), replicationFactor < 0 ? Optional.empty()
          : Optional.of(replicationFactor)).configs(Map.of("cleanup.policy", "delete", "retention.ms", "-1",
          "retention.bytes", "-1"));
      admin.createTopics(List.of(t)).all().get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new ConnectException("cannot create topic " + topic + ": " + e.getCause().getMessage(), e.getCause());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted creating topic " + topic, e);
    }
  }

  /**
   * Where the sequence numbers of a log that holds no committed record continue: its log start
   * offset. 0 for a new log, and for one whose only records were aborted (a worker killed before
   * its first Kafka transaction committed), so a new replica still finds record number 0; for a
   * log emptied by retention, a number above every deleted record's (a number is never above its
   * offset).
   */
  public long startOffset(String topic) {
    TopicPartition tp = new TopicPartition(topic, 0);
    try {
      return log.logStart(tp).orElseThrow(() -> new org.apache.kafka.common.errors.TimeoutException(
          "cannot read the log start of " + tp + " now"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted reading the log start of " + tp, e);
    }
  }

  /** The newest schema {@code history} holds at or before {@code commit} of lineage {@code replicaVersion}. */
  public Optional<io.pg2lite.source.schema.RecordedSchema> schemaAtOrBefore(SchemaHistory history,
      Watermark replicaVersion, Watermark commit) {
    return history.atOrBefore(log, replicaVersion, commit);
  }

  /**
   * The last committed change-log record of {@code topic}, or empty when the topic holds none.
   * Read with {@code read_committed}: records of aborted Kafka transactions never count.
   */
  public Optional<LogTail> tail(String topic) {
    return log.lastRecord(new TopicPartition(topic, 0)).map(last -> {
      Header rv = last.headers().lastHeader(ChangeLogHeaders.REPLICA_VERSION);
      Header seq = last.headers().lastHeader(ChangeLogHeaders.SEQ);
      return new LogTail(new ChangeLogCodec().decode(last.value()),
          rv == null ? null : Watermark.parse(new String(rv.value(), StandardCharsets.UTF_8)),
          seq == null ? null : Long.valueOf(new String(seq.value(), StandardCharsets.UTF_8)), last.offset());
    });
  }
}
