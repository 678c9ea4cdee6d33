package io.pg2lite.protocol.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.stored.StoredValue;
import java.util.List;
import org.junit.jupiter.api.Test;

class BucketsTest {
  private final RowHash hash = new RowHash();

  private int bucket(Buckets b, long key) {
    return b.of(List.of(new StoredValue.Integer(key)), hash);
  }

  @Test
  void rangesCutTheKeysIntoEqualParts() {
    Buckets.Ranges r = new Buckets.Ranges(1, 100_000, 10);
    assertEquals(0, bucket(r, 1));
    assertEquals(0, bucket(r, 10_000));
    assertEquals(1, bucket(r, 10_001));
    assertEquals(9, bucket(r, 100_000));
    assertEquals(0, bucket(r, -5), "below the snapshot's smallest: the first");
    assertEquals(9, bucket(r, 1_000_000), "above its largest: the last");
    assertEquals(10_001, r.from(1));
    assertEquals(20_000, r.to(1));
    assertEquals(100_000, r.to(9));
    for (int b = 0; b < 10; b++) {
      assertEquals(b, bucket(r, r.from(b)));
      assertEquals(b, bucket(r, r.to(b)));
    }
  }

  @Test
  void rangesOverTheWholeLongSpanDoNotOverflow() {
    Buckets.Ranges r = new Buckets.Ranges(Long.MIN_VALUE, Long.MAX_VALUE, 1024);
    assertEquals(0, bucket(r, Long.MIN_VALUE));
    assertEquals(1023, bucket(r, Long.MAX_VALUE));
    assertEquals(512, bucket(r, 0));
    for (int b = 0; b < 1024; b += 97) {
      assertEquals(b, bucket(r, r.from(b)));
      assertEquals(b, bucket(r, r.to(b)));
    }
  }

  @Test
  void rangesNeedOneIntegerKey() {
    Buckets.Ranges r = new Buckets.Ranges(1, 10, 2);
    assertThrows(IllegalArgumentException.class, () -> r.of(List.of(new StoredValue.Text("1")), hash));
  }

  @Test
  void hashedBucketsSpreadAnyKey() {
    Buckets.Hashed h = new Buckets.Hashed(16);
    int[] seen = new int[16];
    for (int i = 0; i < 16_000; i++) {
      int b = h.of(List.of(new StoredValue.Text("key-" + i), new StoredValue.Integer(i)), hash);
      seen[b]++;
    }
    for (int n : seen) {
      assertTrue(n > 800 && n < 1200, "about a sixteenth in each: " + java.util.Arrays.toString(seen));
    }
  }

  @Test
  void theCountFollowsTheRows() {
    assertEquals(1, Buckets.countFor(0));
    assertEquals(1, Buckets.countFor(4_096));
    assertEquals(2, Buckets.countFor(4_097));
    assertEquals(245, Buckets.countFor(1_000_000));
    assertEquals(1_024, Buckets.countFor(100_000_000));
  }
}
