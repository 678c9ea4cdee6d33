package io.pg2lite.backfill.verify;

import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.stored.StoredForm;
import io.pg2lite.protocol.stored.StoredValue;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.verify.BucketDigest;
import io.pg2lite.protocol.verify.Buckets;
import io.pg2lite.protocol.verify.Hash128;
import io.pg2lite.protocol.verify.RowHash;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One table's bucket digests as the source computes them: every row of the snapshot added, then
 * the rows some change after {@code since} touched taken out again. Rows arrive as change-log
 * values (the backfill copy's reading) and are hashed in the replica's stored form
 * ({@link StoredForm}), the rule the sink binds values with. Not thread-safe: one thread at a time
 * (the verify worker, then the source's poll thread for the last keys).
 */
public final class TableDigests {
  private final VerifyTable table;
  private final List<String> layout;
  private final Buckets buckets;
  private final BucketDigest[] digests;
  private final RowHash hash = new RowHash();
  /** Keys of the rows taken out, as read from the snapshot: a row is taken out once. */
  private final Set<List<Value>> excludedKeys = new HashSet<>();

  /**
   * @param layout the column of each value of a row, in the order rows arrive (row key first)
   */
  public TableDigests(VerifyTable table, List<String> layout, Buckets buckets) {
    if (!new HashSet<>(layout).equals(table.columns().keySet())) {
      throw new IllegalArgumentException("rows of " + table.name() + " hold " + layout + ", the table has "
          + table.columns().keySet());
    }
    this.table = table;
    this.layout = List.copyOf(layout);
    this.buckets = buckets;
    this.digests = new BucketDigest[buckets.count()];
    for (int i = 0; i < digests.length; i++) {
      digests[i] = new BucketDigest();
    }
  }

  public Buckets buckets() {
    return buckets;
  }

  /** Adds a row of the snapshot. */
  public void add(List<Value> row) {
    Placed p = place(row);
    digests[p.bucket].plus(p.hash);
  }

  /**
   * Takes out a row of the snapshot whose key a change after {@code since} touched (at most once
   * per key, however often it was touched).
   */
  public void exclude(List<Value> row) {
    if (excludedKeys.add(List.copyOf(row.subList(0, table.key().size())))) {
      Placed p = place(row);
      digests[p.bucket].minus(p.hash);
    }
  }

  public long excluded() {
    return excludedKeys.size();
  }

  public long rows() {
    long n = 0;
    for (BucketDigest d : digests) {
      n += d.count();
    }
    return n;
  }

  private record Placed(int bucket, Hash128 hash) {}

  private Placed place(List<Value> row) {
    if (row.size() != layout.size()) {
      throw new IllegalArgumentException("a row of " + table.name() + " has " + row.size() + " values for "
          + layout.size() + " columns");
    }
    SortedMap<String, StoredValue> stored = new TreeMap<>();
    List<StoredValue> key = new ArrayList<>(table.key().size());
    for (int i = 0; i < row.size(); i++) {
      String column = layout.get(i);
      StoredValue v = StoredForm.of(row.get(i), table.storage(column));
      stored.put(column, v);
      if (i < table.key().size()) {
        key.add(v);
      }
    }
    Hash128 h = hash.of(stored);
    return new Placed(buckets.of(key, hash), h);
  }

  /** The message a replica compares against. */
  public Verify message(String id, Watermark snapshot, Watermark since, Verify.KeyRange range) {
    List<Verify.Digest> out = new ArrayList<>(digests.length);
    for (BucketDigest d : digests) {
      out.add(new Verify.Digest(d.count(), d.sum()));
    }
    return new Verify(id, table.relation(), List.copyOf(table.columns().keySet()), snapshot, since,
        Verify.Result.COMPARED, null, range, buckets, out, excluded());
  }
}
