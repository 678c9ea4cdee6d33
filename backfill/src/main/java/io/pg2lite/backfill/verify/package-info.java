/**
 * The source's half of a verification (issue 29, ADR 0040): requests, the tables they name, each
 * table read from a snapshot at an exact log position and reduced to bucket digests in the
 * replica's stored form, and the {@code verify} messages written into the change log.
 *
 * <p>The invariant both sides keep: a digest covers exactly the rows no log transaction after
 * {@code since} touched. The source reads the snapshot (taken after {@code since} was written),
 * then subtracts the rows of every key a change after {@code since} touched, up to the position
 * its message is written at; a replica counts the rows whose {@code _0_version} is at or below
 * {@code since}. A row nothing touched in that window is the same at the snapshot and at the
 * message, so both sides compare the same rows whatever the live stream does meanwhile.
 */
package io.pg2lite.backfill.verify;
