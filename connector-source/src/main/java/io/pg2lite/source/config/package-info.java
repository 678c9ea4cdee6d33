/**
 * The source's configuration: parsed once into typed fields ({@link io.pg2lite.source.config.SourceConfig}),
 * and the config side of {@code validate()} ({@link io.pg2lite.source.config.SourceValidator}),
 * which touches no server: the live checks are in the packages that own Postgres and Kafka.
 */
package io.pg2lite.source.config;
