/**
 * The replica's stored form of a change-log value: which SQLite storage class a column's values
 * take ({@link io.pg2lite.protocol.stored.ReplicaStorage}) and what exactly a value becomes there
 * ({@link io.pg2lite.protocol.stored.StoredForm}). The sink binds what this says, and a
 * verification computes its digests over it on both sides (the source from the values it reads
 * from Postgres, a replica from what SQLite returns), so one rule decides both: a replica that
 * holds anything else is reported. Every spelling here is part of the stored replica layout, read
 * back by later versions of the sink and by readers of the file: change none.
 */
package io.pg2lite.protocol.stored;
