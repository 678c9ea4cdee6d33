package io.pg2lite.protocol.verify;

import io.pg2lite.protocol.stored.StoredValue;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.SortedMap;

/**
 * The 128-bit hash of a row (or of a row key) in the replica's stored form: SHA-256 over each
 * column in name order (by {@link String#compareTo}, so the order of columns in a table, which a
 * replica and Postgres may not share, does not matter) as its name, then its value: a tag for
 * the storage class and the value's bytes (an INTEGER's 8 bytes, a REAL's IEEE bits, a TEXT's
 * UTF-8, a BLOB's bytes, each length-prefixed where it varies), of which the first 16 bytes are
 * kept. Two rows hash alike only if every column holds the same class and the same value: 1 and
 * 1.0 and '1' differ, as they do in SQLite.
 *
 * <p>Not thread-safe (one digest, reused); one per thread.
 */
public final class RowHash {
  private static final byte NULL = 0;
  private static final byte INTEGER = 1;
  private static final byte REAL = 2;
  private static final byte TEXT = 3;
  private static final byte BLOB = 4;

  private final MessageDigest sha;
  private final ByteBuffer eight = ByteBuffer.allocate(8);

  public RowHash() {
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /** The hash of {@code row}: column name → stored value, in name order. */
  public Hash128 of(SortedMap<String, StoredValue> row) {
    for (Map.Entry<String, StoredValue> e : row.entrySet()) {
      bytes(e.getKey().getBytes(StandardCharsets.UTF_8));
      value(e.getValue());
    }
    return finish();
  }

  /** The hash of a key's values in key-column order (names are the table's, the same on both sides). */
  public Hash128 ofKey(Iterable<StoredValue> key) {
    for (StoredValue v : key) {
      value(v);
    }
    return finish();
  }

  private Hash128 finish() {
    ByteBuffer d = ByteBuffer.wrap(sha.digest()); // resets the digest
    return new Hash128(d.getLong(), d.getLong());
  }

  private void value(StoredValue v) {
    if (v instanceof StoredValue.Null) {
      sha.update(NULL);
    } else if (v instanceof StoredValue.Integer i) {
      sha.update(INTEGER);
      number(i.value());
    } else if (v instanceof StoredValue.Real r) {
      sha.update(REAL);
      number(Double.doubleToLongBits(r.value()));
    } else if (v instanceof StoredValue.Text t) {
      sha.update(TEXT);
      bytes(t.value().getBytes(StandardCharsets.UTF_8));
    } else if (v instanceof StoredValue.Blob b) {
      sha.update(BLOB);
      bytes(b.value());
    } else {
      throw new IllegalStateException("unhandled stored value " + v);
    }
  }

  private void bytes(byte[] b) {
    number(b.length);
    sha.update(b);
  }

  private void number(long n) {
    eight.clear();
    eight.putLong(n);
    sha.update(eight.array());
  }
}
