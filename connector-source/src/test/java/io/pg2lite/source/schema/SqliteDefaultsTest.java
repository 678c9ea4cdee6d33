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

  /**
   * An array constant is a SQLite default only when the sink can store it as the live stream's
   * JSON of the same array; otherwise the column is backfilled (issue 10, defect 6).
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      text[]        | '{a,"b c",NULL}'::text[]                 | true
      text[]        | '{"it''s","x,y","q\\"u"}'::text[]      | true
      int4[]        | '{1,NULL,-3}'::integer[]                 | true
      int4[]        | '{}'::integer[]                          | true
      float8[]      | '{-0,NaN}'::double precision[]           | true
      varchar[]     | '{a}'::character varying[]               | true
      int4[]        | '[0:1]={1,2}'::integer[]                 | false
      int4[]        | ARRAY[1, 2]                              | false
      timestamptz[] | '{"2025-01-01 00:00:00+00"}'::timestamp with time zone[] | false
      bytea[]       | '{"\\\\x00"}'::bytea[]               | false
      text[]        | NULL                                     | true
      """)
  void arrayConstantsOnlyWhenTheSinkCanStoreThemAsTheLiveStreamDoes(String type, String dflt, boolean expected) {
    PublishedSchema.Column c = new PublishedSchema.Column("arr", 2, type, "b", "b", null, false, dflt);
    assertEquals(expected, SqliteDefaults.canExpress(c), type + " DEFAULT " + dflt);
  }

  /** Scalar constants only of types whose literal is the log's form; others are backfilled. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      int4        | 7                                              | b | true
      numeric     | 1.50                                           | b | true
      varchar     | 'x'::character varying                         | b | true
      bool        | true                                           | b | true
      mood        | 'happy'::mood                                  | e | true
      bytea       | '\\x'::bytea                                   | b | false
      timestamptz | '2020-01-01 00:00:00+00'::timestamp with time zone | b | false
      interval    | '1 day'::interval                              | b | false
      jsonb       | '{"a":1}'::jsonb                               | b | false
      uuid        | 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid   | b | false
      bpchar      | 'ab'::bpchar                                   | b | false
      time        | '03:04:05'::time without time zone             | b | false
      """)
  void scalarConstantsOnlyOfTypesWhoseLiteralIsTheLogForm(String type, String dflt, String typeClass, boolean expected) {
    PublishedSchema.Column c = new PublishedSchema.Column("c", 2, type, typeClass, null, null, false, dflt);
    assertEquals(expected, SqliteDefaults.canExpress(c), type + " DEFAULT " + dflt);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      int4    | 7                  | -1    | true
      int8    | (-1)::bigint       | -1    | true
      int4    | 1.7                | -1    | false
      numeric | 1.5                | -1    | true
      numeric | 1.5                | 655366 | false
      """)
  void integerAndScaledNumericDefaultsOnlyWhenPostgresStoresTheLiteralAsWritten(String type, String dflt, int typmod,
      boolean expected) {
    PublishedSchema.Column c = new PublishedSchema.Column("c", 2, type, "b", null, null, false, dflt, typmod);
    assertEquals(expected, SqliteDefaults.canExpress(c), type + "(" + typmod + ") DEFAULT " + dflt);
  }
}
