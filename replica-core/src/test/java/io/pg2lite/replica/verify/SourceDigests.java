package io.pg2lite.replica.verify;

import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.stored.ReplicaStorage;
import io.pg2lite.protocol.stored.StoredForm;
import io.pg2lite.protocol.stored.StoredValue;
import io.pg2lite.protocol.verify.BucketDigest;
import io.pg2lite.protocol.verify.Buckets;
import io.pg2lite.protocol.verify.RowHash;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The digests a source would send for {@code rows} of a table, computed here from the change-log
 * values with the protocol's rule only ({@link StoredForm}, {@link RowHash}, {@link BucketDigest}),
 * never through the replica's code: what the replica computes is checked against an independent
 * reckoning.
 */
final class SourceDigests {
  private SourceDigests() {}

  /** The columns a verify message names: every column of {@code spec}, in name order. */
  static List<String> columns(TableSpec spec) {
    return new ArrayList<>(new TreeMap<>(spec.columns()).keySet());
  }

  static List<Verify.Digest> of(TableSpec spec, List<String> key, Buckets buckets, List<Row> rows) {
    BucketDigest[] digests = new BucketDigest[buckets.count()];
    for (int b = 0; b < digests.length; b++) {
      digests[b] = new BucketDigest();
    }
    RowHash rowHash = new RowHash();
    RowHash keyHash = new RowHash();
    for (Row r : rows) {
      SortedMap<String, StoredValue> stored = new TreeMap<>();
      for (Map.Entry<String, ColumnSpec> c : spec.columns().entrySet()) {
        Value v = r.contains(c.getKey()) ? r.get(c.getKey()) : Value.NULL;
        stored.put(c.getKey(), StoredForm.of(v, ReplicaStorage.of(c.getValue())));
      }
      List<StoredValue> keyValues = key.stream().map(stored::get).toList();
      digests[buckets.of(keyValues, keyHash)].plus(rowHash.of(stored));
    }
    List<Verify.Digest> out = new ArrayList<>();
    for (BucketDigest d : digests) {
      out.add(new Verify.Digest(d.count(), d.sum()));
    }
    return out;
  }
}
