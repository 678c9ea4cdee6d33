/**
 * Verification at an exact position (issue 29, ADR 0040): the replica's side of a {@code verify}
 * message. The source wrote, per table, the digests of a Postgres snapshot, leaving out the rows
 * some change after {@code since} touched; the replica computes the same digests over its own rows
 * at the position of the transaction that carries the message, and reports match or mismatch.
 *
 * <p>Invariants, and what breaks without them:
 * <ul>
 *   <li><b>The position is exact.</b> The applier commits SQLite right after the verify
 *       transaction (it never coalesces past it), and {@link io.pg2lite.replica.verify.ReplicaVerifier}
 *       opens its read transaction before the applier takes the next record. A snapshot taken later
 *       would hold rows written after the verify, counted as differences that are not there.
 *   <li><b>The same rows on both sides.</b> The replica counts only rows whose {@code _0_version}
 *       is at or below {@code since} (NULL counts as old: a row no change versioned). Every write
 *       versions its row with its transaction's watermark, which is above {@code since} for every
 *       transaction after it, so these are exactly the rows nothing after {@code since} touched,
 *       the rows the source kept.
 *   <li><b>The same rule for a row's hash and bucket.</b> The protocol's ({@code protocol.verify}):
 *       {@code RowHash} over the message's columns as SQLite returns them
 *       ({@code StoredValue.ofJdbc}: the storage class is the value's own, which the sink bound
 *       from the protocol's {@code StoredForm}), {@code Buckets.of} over the row key's values in
 *       key order. Columns the replica has and the message does not name are not compared.
 *   <li><b>Never in the apply loop's way.</b> The digest runs on a daemon thread over its own
 *       connection (a WAL reader: the writer never waits for it); only opening that reader is
 *       synchronous. Without WAL a reader would block the writer, so the digest then runs on the
 *       applying thread, right after the commit.
 *   <li><b>Durable request, honest outcome.</b> A {@code pending} row in {@code _pg2lite.verify}
 *       is written in the upstream transaction itself, so it is durable with that position; the
 *       outcome replaces it when the digest is done. A replica that stops first finds it
 *       {@code pending} when it opens again and says so ({@code not-compared}): the snapshot
 *       the digest needed is gone.
 * </ul>
 */
package io.pg2lite.replica.verify;
