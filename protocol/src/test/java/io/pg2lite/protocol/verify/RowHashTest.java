package io.pg2lite.protocol.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.pg2lite.protocol.stored.StoredValue;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class RowHashTest {
  private final RowHash hash = new RowHash();

  private static TreeMap<String, StoredValue> row(Object... nameValue) {
    TreeMap<String, StoredValue> r = new TreeMap<>();
    for (int i = 0; i < nameValue.length; i += 2) {
      r.put((String) nameValue[i], (StoredValue) nameValue[i + 1]);
    }
    return r;
  }

  @Test
  void theColumnsOrderInTheTableDoesNotMatter() {
    TreeMap<String, StoredValue> a = row("id", new StoredValue.Integer(1), "name", new StoredValue.Text("x"));
    TreeMap<String, StoredValue> b = new TreeMap<>();
    b.put("name", new StoredValue.Text("x"));
    b.put("id", new StoredValue.Integer(1));
    assertEquals(hash.of(a), hash.of(b));
  }

  @Test
  void theStorageClassIsPartOfTheValueAsInSqlite() {
    Hash128 integer = hash.of(row("v", new StoredValue.Integer(1)));
    assertNotEquals(integer, hash.of(row("v", new StoredValue.Real(1.0))), "1 and 1.0");
    assertNotEquals(integer, hash.of(row("v", new StoredValue.Text("1"))), "1 and '1'");
    assertNotEquals(hash.of(row("v", new StoredValue.Text(""))), hash.of(row("v", StoredValue.NULL)), "'' and NULL");
    assertNotEquals(hash.of(row("v", new StoredValue.Blob(new byte[] {'a'}))), hash.of(row("v", new StoredValue.Text("a"))),
        "x'61' and 'a'");
    assertNotEquals(hash.of(row("v", new StoredValue.Real(0.0))), hash.of(row("v", new StoredValue.Real(-0.0))), "0.0, -0.0");
  }

  @Test
  void namesAndValuesCannotSlideIntoEachOther() {
    // length prefixes: ("ab", "c") is not ("a", "bc")
    assertNotEquals(hash.of(row("ab", new StoredValue.Text("c"))), hash.of(row("a", new StoredValue.Text("bc"))));
    assertNotEquals(hash.of(row("a", new StoredValue.Text("x"), "b", StoredValue.NULL)),
        hash.of(row("a", new StoredValue.Text("x"))), "a NULL column counts");
  }

  @Test
  void aHashIsStableAcrossInstancesAndCalls() {
    TreeMap<String, StoredValue> r = row("id", new StoredValue.Integer(42), "t", new StoredValue.Text("héllo"));
    Hash128 first = hash.of(r);
    assertEquals(first, hash.of(r), "the digest resets between rows");
    assertEquals(first, new RowHash().of(r));
    // Pinned, and reproduced outside Java (Python: hashlib.sha256 over the same bytes): a change
    // to the rule changes every digest, so it must be deliberate, and other consumers can follow it.
    assertEquals(new Hash128(-365289595602396299L, -6539672657537455970L), first, "the rule's hash of this row");
    assertEquals(hash.ofKey(List.of(new StoredValue.Integer(42))), new RowHash().ofKey(List.of(new StoredValue.Integer(42))));
  }
}
