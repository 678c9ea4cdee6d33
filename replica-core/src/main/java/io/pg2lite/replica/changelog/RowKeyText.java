package io.pg2lite.replica.changelog;

import io.pg2lite.protocol.stored.StoredForm;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import java.util.ArrayList;

/**
 * A row key as {@code _pg2lite.changes.row_key} spells it: its values as a JSON array in key
 * order ({@link StoredForm#arrayJson}). The text is the record's identity: one key must always
 * give one text (or a row's record would be looked up in vain), so this spelling never changes.
 */
public final class RowKeyText {
  private RowKeyText() {}

  public static String of(Row key) {
    return StoredForm.arrayJson(new Value.Array(new ArrayList<>(key.values().values())));
  }
}
