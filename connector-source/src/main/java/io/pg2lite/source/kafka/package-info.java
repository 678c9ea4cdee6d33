/**
 * The change-log topic on Kafka: creating and checking it ({@link io.pg2lite.source.kafka.ChangeLogTopic},
 * and for {@code validate()} {@link io.pg2lite.source.kafka.ChangeLogProbe}), reading its tail on
 * start ({@link io.pg2lite.source.kafka.LogTail}), the records written to it
 * ({@link io.pg2lite.source.kafka.ChangeLogRecords}) and when an exactly-once Kafka transaction
 * closes ({@link io.pg2lite.source.kafka.KafkaCommitPolicy}).
 */
package io.pg2lite.source.kafka;
