package io.pg2lite.source.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SqliteDefaultsTest {
  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      42                              | true
      (-1)                            | true
      3.5                             | true
      'abc'::text                     | true
      'it''s'::character varying      | true
      true                            | true
      '{}'::text[]                    | true
      NULL                            | true
      now()                           | false
      CURRENT_TIMESTAMP               | false
      gen_random_uuid()               | false
      nextval('t_id_seq'::regclass)   | false
      upper('a'::text)                | false
      """)
  void onlyConstantsCanBeExpressed(String dflt, boolean expected) {
    assertEquals(expected, SqliteDefaults.canExpress(dflt), dflt);
  }
}
