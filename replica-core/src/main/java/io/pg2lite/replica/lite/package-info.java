/**
 * How the replica spells things in SQLite: quoted identifiers and table names
 * ({@link io.pg2lite.replica.lite.SqlNames}), declared types and storage
 * ({@link io.pg2lite.replica.lite.LiteTypes}), change-log values as SQLite values
 * ({@link io.pg2lite.replica.lite.LiteValues}) and the metadata tables' small JSON texts
 * ({@link io.pg2lite.replica.lite.Json}). Every spelling here is part of the stored replica
 * layout, read back by later versions of the sink and by readers of the file: change none.
 */
package io.pg2lite.replica.lite;
