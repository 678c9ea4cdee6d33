package io.pg2lite.protocol.watermark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LsnTest {
  @Test
  void parsesPaddedAndLowerCaseForms() {
    assertEquals(Lsn.parse("16/B374D848"), Lsn.parse("00000016/b374d848"));
    assertEquals(97_500_059_720L, Lsn.parse("16/B374D848").value());
    assertEquals("16/B374D848", Lsn.parse("00000016/b374d848").toString());
    assertEquals("0/0", Lsn.ZERO.toString());
  }

  @Test
  void ordersUnsigned() {
    Lsn top = Lsn.parse("FFFFFFFF/FFFFFFFF");
    assertEquals(-1L, top.value());
    assertTrue(top.compareTo(Lsn.parse("7FFFFFFF/FFFFFFFF")) > 0);
    assertEquals("FFFFFFFF/FFFFFFFF", top.toString());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "/", "16", "16/", "/B3", "123456789/0", "0/123456789", "G/0", "1/2/3", "0x1/0", "１/0"})
  void rejectsMalformedLsnsNamingThem(String bad) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Lsn.parse(bad));
    assertTrue(e.getMessage().contains("\"" + bad + "\""), e.getMessage());
  }
}
