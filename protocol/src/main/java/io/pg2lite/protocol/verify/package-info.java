/**
 * Verification (issue 29, ADR 0040): the one rule by which the source, over a Postgres snapshot,
 * and every replica, over its SQLite file, compute the same digests of a table's rows. A row's
 * hash is over its {@linkplain io.pg2lite.protocol.stored.StoredForm stored form} ({@link
 * io.pg2lite.protocol.verify.RowHash}); rows fall into buckets by their key ({@link
 * io.pg2lite.protocol.verify.Buckets}); a bucket's digest is the count and the sum of its rows'
 * hashes ({@link io.pg2lite.protocol.verify.BucketDigest}), so neither side needs its rows in any
 * order.
 */
package io.pg2lite.protocol.verify;
