/**
 * The lineage of the change log: whether the source can go on with the one it wrote, or must start
 * a new one ({@code resync.auto}), and the words that tell an operator why.
 *
 * <p>A lineage is what one slot produced, named by the slot's consistent point (the replica
 * version). It ends when the slot cannot be read any more (invalidated by Postgres, dropped), when
 * the topic no longer holds what the source wrote, or when the source's offsets are lost. Each of
 * those is found at start ({@link io.pg2lite.source.lineage.LineageCheck}) and, for the slot,
 * before every replication session opens ({@link io.pg2lite.source.lineage.SlotGuard}), so no
 * retry loop ever hides it.
 */
package io.pg2lite.source.lineage;
