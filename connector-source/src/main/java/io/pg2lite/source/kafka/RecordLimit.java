package io.pg2lite.source.kafka;

import java.util.Optional;

/**
 * How large a change-log record's value may be: what both Kafka limits on the way let through.
 * The producer refuses a record over its {@code max.request.size} (1 MiB by default; the connector
 * sets it with {@code producer.override.max.request.size}), the broker a batch over the topic's
 * {@code max.message.bytes} (1 MiB + 12 by default). A larger entry is cut into parts
 * ({@link io.pg2lite.protocol.parts.RecordValues}) that fit the smaller of the two.
 *
 * @param topicMaxMessageBytes the topic's {@code max.message.bytes} (for a topic still to be created,
 *     the broker's {@code message.max.bytes}, which it will inherit)
 * @param producerMaxRequestSize the producer's {@code max.request.size}
 */
public record RecordLimit(int topicMaxMessageBytes, int producerMaxRequestSize) {
  /** Kafka's default {@code max.request.size}, which a worker's producer has unless told otherwise. */
  public static final int PRODUCER_DEFAULT = 1_048_576;
  /** The connector-level key that sets the producer's limit. */
  public static final String PRODUCER_OVERRIDE = "producer.override.max.request.size";
  /**
   * What a record takes besides its value: the batch header (61 bytes), the record's own varints,
   * and the pg2lite headers (under 400 bytes). Kept generous: a record over a limit fails the task.
   */
  static final int RECORD_OVERHEAD = 2048;

  /** The most bytes a record value may take. */
  public int valueLimit() {
    return Math.min(topicMaxMessageBytes, producerMaxRequestSize) - RECORD_OVERHEAD;
  }

  /**
   * An operator-ready warning when the two limits disagree, or empty. Nothing fails either way
   * (records are cut to the smaller), but the larger setting is then a promise nobody keeps.
   */
  public Optional<String> disagreement(String topic) {
    if (topicMaxMessageBytes == producerMaxRequestSize || Math.abs(topicMaxMessageBytes - producerMaxRequestSize) <= 12) {
      return Optional.empty(); // the defaults differ by the 12 bytes of the broker's log overhead
    }
    String smaller = topicMaxMessageBytes < producerMaxRequestSize ? "the topic's max.message.bytes"
        : "the producer's max.request.size";
    return Optional.of("topic " + topic + " accepts records of up to " + topicMaxMessageBytes + " bytes "
        + "(max.message.bytes) but the source's producer sends at most " + producerMaxRequestSize + " bytes "
        + "(max.request.size" + (producerMaxRequestSize == PRODUCER_DEFAULT ? ", Kafka's default" : "") + "): "
        + smaller + " wins, and change-log records larger than " + (Math.min(topicMaxMessageBytes,
        producerMaxRequestSize) - RECORD_OVERHEAD) + " bytes are cut into parts of that size. To use larger "
        + "records set both to one value (" + PRODUCER_OVERRIDE + " on the connector, max.message.bytes on the topic)");
  }
}
