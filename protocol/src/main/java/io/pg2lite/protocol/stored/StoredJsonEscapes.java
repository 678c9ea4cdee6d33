package io.pg2lite.protocol.stored;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;

/**
 * How the replica's stored JSON texts escape a string's characters: {@code "} and {@code \} with
 * a backslash, every control character (below U+0020) as a lower-case <code>&#92;u00xx</code>, nothing
 * else (non-ASCII characters, supplementary ones included, are written as they are).
 *
 * <p>Jackson's default differs ({@code \n}, {@code \t}, ... and upper-case hex), and so does the
 * change log's codec (which also escapes supplementary characters as surrogate pairs). The
 * replica keeps the form it has always stored: a row key's text is its identity in
 * {@code _pg2lite.changes}, so another spelling of the same key would miss its record.
 */
final class StoredJsonEscapes extends CharacterEscapes {
  private static final long serialVersionUID = 1L;
  private static final int[] ASCII = CharacterEscapes.standardAsciiEscapesForJSON();
  private static final SerializableString[] CONTROLS = new SerializableString[0x20];

  static {
    for (int c = 0; c < 0x20; c++) {
      ASCII[c] = CharacterEscapes.ESCAPE_CUSTOM;
      CONTROLS[c] = new SerializedString(String.format("\\u%04x", c));
    }
  }

  @Override
  public int[] getEscapeCodesForAscii() {
    return ASCII;
  }

  @Override
  public SerializableString getEscapeSequence(int ch) {
    return ch < 0x20 ? CONTROLS[ch] : null;
  }
}
