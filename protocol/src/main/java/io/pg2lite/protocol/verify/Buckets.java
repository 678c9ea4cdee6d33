package io.pg2lite.protocol.verify;

import io.pg2lite.protocol.stored.StoredValue;
import java.util.List;

/**
 * How a verified table's rows fall into buckets by their row key, so that a mismatch names a part
 * of the table rather than the whole: for a key of one integer column, {@link Ranges} of equal
 * width over the snapshot's smallest to largest key (a mismatch reads "ids 40,001 to 50,000");
 * for any other key, {@link Hashed}: the key's {@link RowHash} modulo the count, which needs no
 * order the replica and Postgres would have to share (text collations differ). Both sides
 * compute the bucket from the key's stored values with this rule.
 */
public sealed interface Buckets {
  /** Rows per bucket the source aims at. */
  long ROWS_PER_BUCKET = 4_096;
  int MAX_BUCKETS = 1_024;

  int count();

  /** The bucket of the row with {@code key} (the row-key columns' stored values, in key order). */
  int of(List<StoredValue> key, RowHash hash);

  /** How many buckets for a table of {@code rows}: one per {@link #ROWS_PER_BUCKET}, 1 to {@link #MAX_BUCKETS}. */
  static int countFor(long rows) {
    return (int) Math.max(1, Math.min(MAX_BUCKETS, (rows + ROWS_PER_BUCKET - 1) / ROWS_PER_BUCKET));
  }

  /**
   * {@code count} ranges of equal width covering {@code min..max}; a key below {@code min} falls
   * in the first, one above {@code max} in the last (a row the snapshot did not have, which the
   * comparison then reports there).
   */
  record Ranges(long min, long max, int count) implements Buckets {
    public Ranges {
      if (max < min || count < 1) {
        throw new IllegalArgumentException("ranges need min <= max and a count >= 1: " + min + ".." + max + " in " + count);
      }
    }

    /** Keys per range (unsigned: max - min may exceed Long.MAX_VALUE). */
    private long width() {
      return Long.divideUnsigned(max - min, count) + 1;
    }

    @Override
    public int of(List<StoredValue> key, RowHash hash) {
      if (key.size() != 1 || !(key.get(0) instanceof StoredValue.Integer i)) {
        throw new IllegalArgumentException("ranged buckets need a key of one integer, not " + key);
      }
      if (i.value() <= min) {
        return 0;
      }
      if (i.value() >= max) {
        return count - 1;
      }
      return (int) Long.divideUnsigned(i.value() - min, width());
    }

    /** The smallest key of bucket {@code b}. */
    public long from(int b) {
      return min + b * width();
    }

    /** The largest key of bucket {@code b}. */
    public long to(int b) {
      return b == count - 1 ? max : from(b + 1) - 1;
    }
  }

  /** The key's hash modulo {@code count}. */
  record Hashed(int count) implements Buckets {
    public Hashed {
      if (count < 1) {
        throw new IllegalArgumentException("a bucket count is at least 1, was " + count);
      }
    }

    @Override
    public int of(List<StoredValue> key, RowHash hash) {
      return count == 1 ? 0 : (int) (hash.ofKey(key).selector() % count);
    }
  }
}
