package io.pg2lite.connect.kafka;

import java.io.IOException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a replica asks of its change log besides its records: the offsets the topic still holds and
 * the lineage of its newest record (replica-core's {@code ReplicaFollowing} asks; Kafka-free, so the
 * replica core can take it). The sink and the followers answer through {@link ChangeLogAdmin}. Correctness never depends on the offsets (a gap is caught from the records'
 * sequence numbers), so those answer "unknown" (empty) rather than block or throw when the log
 * cannot be read now; the lineage chooses which snapshot to restore, so not knowing it is an error
 * the restore retries.
 */
public interface ChangeLogView {
  /** The first offset still in the log, or empty when it cannot be read now. */
  OptionalLong logStart(String topic, int partition);

  /** The offset after the log's last record, or empty when it cannot be read now. */
  OptionalLong logEnd(String topic, int partition);

  /**
   * The replica version (lineage header) of the log's newest committed record: the lineage a
   * snapshot to restore must share. Empty when the log holds no record (or none with the header).
   *
   * @throws IOException when the log cannot be read now
   */
  Optional<String> newestReplicaVersion(String topic, int partition) throws IOException;

  /** Where the log is, for messages: "topic pg2lite.changes at broker1:9092". */
  String describe();

  /** A view that knows nothing (no admin client configured): every answer is "unknown". */
  ChangeLogView UNKNOWN = new ChangeLogView() {
    @Override
    public OptionalLong logStart(String topic, int partition) {
      return OptionalLong.empty();
    }

    @Override
    public OptionalLong logEnd(String topic, int partition) {
      return OptionalLong.empty();
    }

    @Override
    public Optional<String> newestReplicaVersion(String topic, int partition) throws IOException {
      throw new IOException("the lineage of " + topic + "-" + partition + " cannot be read without a Kafka client");
    }

    @Override
    public String describe() {
      return "the change log (no Kafka client to read its offsets)";
    }
  };
}
