package io.pg2lite.protocol.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BucketDigestTest {
  private static List<Hash128> hashes(int n, long seed) {
    Random r = new Random(seed);
    List<Hash128> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new Hash128(r.nextLong(), r.nextLong()));
    }
    return out;
  }

  @Test
  void theOrderOfRowsDoesNotMatter() {
    List<Hash128> rows = hashes(1000, 1);
    BucketDigest a = new BucketDigest();
    rows.forEach(a::plus);
    Collections.shuffle(rows, new Random(2));
    BucketDigest b = new BucketDigest();
    rows.forEach(b::plus);
    assertEquals(a, b);
    assertEquals(1000, a.count());
  }

  @Test
  void minusTakesOutWhatPlusAdded() {
    List<Hash128> rows = hashes(500, 3);
    BucketDigest some = new BucketDigest();
    rows.subList(0, 400).forEach(some::plus);
    BucketDigest all = new BucketDigest();
    rows.forEach(all::plus);
    rows.subList(400, 500).forEach(all::minus);
    assertEquals(some, all);
  }

  @Test
  void theCarryCrossesTheHalves() {
    BucketDigest d = new BucketDigest().plus(new Hash128(0, -1L)).plus(new Hash128(0, 1));
    assertEquals("0000000000000001" + "0000000000000000", d.sum());
    d.minus(new Hash128(0, 1));
    assertEquals("0000000000000000" + "ffffffffffffffff", d.sum());
  }

  @Test
  void theSumReadsBackFromItsText() {
    BucketDigest d = new BucketDigest();
    hashes(10, 4).forEach(d::plus);
    assertEquals(d, BucketDigest.of(10, d.sum()));
    assertNotEquals(d, BucketDigest.of(9, d.sum()), "the count is compared too");
    assertThrows(IllegalArgumentException.class, () -> BucketDigest.of(1, "abc"));
  }
}
