package io.pg2lite.protocol.stored;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.value.Value;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class StoredFormTest {
  @Test
  void eachKindOfValueInItsOwnStorage() {
    assertEquals(StoredValue.NULL, StoredForm.of(Value.NULL, ReplicaStorage.TEXT));
    assertEquals(new StoredValue.Integer(1), StoredForm.of(new Value.Bool(true), ReplicaStorage.BOOLEAN));
    assertEquals(new StoredValue.Integer(0), StoredForm.of(new Value.Bool(false), ReplicaStorage.BOOLEAN));
    assertEquals(new StoredValue.Integer(Long.MIN_VALUE), StoredForm.of(new Value.Int(Long.MIN_VALUE), ReplicaStorage.INTEGER));
    assertEquals(new StoredValue.Real(0.1), StoredForm.of(new Value.Float(0.1), ReplicaStorage.REAL));
    assertEquals(new StoredValue.Text("1.10"), StoredForm.of(new Value.Text("1.10"), ReplicaStorage.TEXT));
    assertEquals(new StoredValue.Text("NaN"), StoredForm.of(new Value.Text("NaN"), ReplicaStorage.REAL));
    assertArrayEquals(new byte[] {0, (byte) 0xff}, ((StoredValue.Blob) StoredForm.of(new Value.Text("\\x00ff"),
        ReplicaStorage.BLOB)).value());
    assertEquals(new StoredValue.Text("[1,null,\"a\\u000a\"]"), StoredForm.of(new Value.Array(Arrays.asList(
        new Value.Int(1), Value.NULL, new Value.Text("a\n"))), ReplicaStorage.TEXT));
  }

  @Test
  void negativeZeroOfAFloatColumnIsItsHexText() {
    assertEquals(new StoredValue.Text(StoredForm.NEGATIVE_ZERO), StoredForm.of(new Value.Float(-0.0), ReplicaStorage.REAL));
    assertEquals(new StoredValue.Real(0.0), StoredForm.of(new Value.Float(0.0), ReplicaStorage.REAL));
  }

  @Test
  void anIntegerTakesItsColumnsAffinity() {
    assertEquals(new StoredValue.Text("5"), StoredForm.of(new Value.Int(5), ReplicaStorage.TEXT));
    assertEquals(new StoredValue.Real(5.0), StoredForm.of(new Value.Int(5), ReplicaStorage.REAL));
  }

  @Test
  void storageFollowsTheUpstreamType() {
    assertEquals(ReplicaStorage.INTEGER, ReplicaStorage.of(ColumnSpec.of(1, "int8")));
    assertEquals(ReplicaStorage.REAL, ReplicaStorage.of(ColumnSpec.of(1, "float4")));
    assertEquals(ReplicaStorage.BOOLEAN, ReplicaStorage.of(ColumnSpec.of(1, "bool")));
    assertEquals(ReplicaStorage.BLOB, ReplicaStorage.of(ColumnSpec.of(1, "bytea")));
    assertEquals(ReplicaStorage.TEXT, ReplicaStorage.of(ColumnSpec.of(1, "int8[]")));
    assertEquals(ReplicaStorage.TEXT, ReplicaStorage.of(ColumnSpec.of(1, "numeric")));
  }
}
