/**
 * The source connector: Postgres logical replication (pgoutput, read through Debezium used as a
 * library) to one totally ordered change-log topic. Only the {@code debezium} subpackage may
 * touch {@code io.debezium.*}.
 */
package io.pg2lite.source;
