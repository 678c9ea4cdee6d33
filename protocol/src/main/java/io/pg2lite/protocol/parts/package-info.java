/**
 * Messages too large for one Kafka record (docs/protocol.md, "Large messages"): the writer's
 * {@link io.pg2lite.protocol.parts.RecordValues} cuts a message's JSON into parts that each fit
 * the record limit; a reader's {@link io.pg2lite.protocol.parts.PartJoiner} puts them together.
 */
package io.pg2lite.protocol.parts;
