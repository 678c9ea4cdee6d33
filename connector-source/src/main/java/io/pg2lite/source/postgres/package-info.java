/**
 * The upstream database outside the replication stream: pg2lite's catalog objects
 * ({@link io.pg2lite.source.postgres.CatalogInstaller}, install.sql), the queries and commands on the
 * catalog, slot and publication ({@link io.pg2lite.source.postgres.PostgresCatalog}),
 * {@code validate()}'s live Postgres checks ({@link io.pg2lite.source.postgres.PostgresProbe}), and
 * how every connection of the source is made, TLS included
 * ({@link io.pg2lite.source.postgres.PostgresConnections}, {@link io.pg2lite.source.postgres.PostgresTls}).
 */
package io.pg2lite.source.postgres;
