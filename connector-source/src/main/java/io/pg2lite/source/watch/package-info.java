/**
 * The worker's watch for hanging Kafka transactions (ADR 0038): a Connect REST extension, so that
 * it runs in the worker whatever the connectors' state. A hanging transaction on a source's
 * offsets topic blocks Connect's start-up of the source before any connector code runs (ADR
 * 0018); only something that lives beside the connectors can say so.
 *
 * <p>It watches the change log and the offsets topic of every pg2lite source of the worker's
 * cluster, with the rule and the reporting of connect-support's
 * {@code io.pg2lite.connect.kafka.hanging}, and serves what it found as an MBean and at
 * {@code GET /pg2lite/hanging-transactions}.
 */
package io.pg2lite.source.watch;
