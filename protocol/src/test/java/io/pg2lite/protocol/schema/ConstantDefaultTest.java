package io.pg2lite.protocol.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.value.Value;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The one constant-default rule: what the source accepts from the catalog and sends, and what the
 * sink reads back (issue 11: two regexes disagreed, and {@code true::boolean} stopped the sink).
 */
class ConstantDefaultTest {
  private static ColumnSpec column(String type, String typeClass, String elemClass, String dflt) {
    return new ColumnSpec(2, type, typeClass, elemClass, null, null, dflt);
  }

  private static Value sinkValue(String type, String typeClass, String elemClass, String dflt) {
    return ConstantDefault.valueOf("c", column(type, typeClass, elemClass, dflt));
  }

  /**
   * Catalog text ({@code pg_get_expr}) the source accepts, the wire form it sends, and the value
   * the sink reads from the wire form and from the catalog text itself (what older sources sent).
   */
  @ParameterizedTest(name = "{0} DEFAULT {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', nullValues = "-", textBlock = """
      bool     | true                              | true                  | b | -
      bool     | true::boolean                     | true                  | b | -
      bool     | false::boolean                    | false                 | b | -
      text     | 'abc'::text                       | 'abc'                 | b | -
      varchar  | 'it''s'::character varying        | 'it''s'               | b | -
      text     | ''::text                          | ''                    | b | -
      text     | 7                                 | '7'                   | b | -
      text     | true                              | 'true'                | b | -
      int8     | (-1)::bigint                      | -1                    | b | -
      int4     | '-1'::integer                     | -1                    | b | -
      int4     | '7'::integer                      | 7                     | b | -
      int4     | 42                                | 42                    | b | -
      int2     | (-1)                              | -1                    | b | -
      int8     | '9223372036854775807'::bigint     | 9223372036854775807   | b | -
      numeric  | 1.5                               | 1.5                   | b | -
      numeric  | 1.50                              | 1.50                  | b | -
      numeric  | '-1.5'::numeric                   | -1.5                  | b | -
      numeric  | 7                                 | 7                     | b | -
      numeric  | 'NaN'::numeric                    | 'NaN'                 | b | -
      float8   | 1.5                               | 1.5                   | b | -
      float8   | '-0'::double precision            | -0.0                  | b | -
      float8   | '1e+300'::double precision        | 1.0E300               | b | -
      float8   | 'NaN'::double precision           | 'NaN'                 | b | -
      float8   | '-Infinity'::double precision     | '-Infinity'           | b | -
      float4   | '0.1'::real                       | 0.1                   | b | -
      float4   | 0.1                               | 0.1                   | b | -
      mood     | 'happy'::mood                     | 'happy'               | e | -
      mood     | 'it''s'::"Mood"                   | 'it''s'               | e | -
      text[]   | '{a,"b c",NULL}'::text[]          | '{"a","b c",NULL}'    | b | b
      text[]   | '{"it''s","x,y","q\\"u","NULL"}'::text[] | '{"it''s","x,y","q\\"u","NULL"}' | b | b
      int4[]   | '{1,NULL,-3}'::integer[]          | '{1,NULL,-3}'         | b | b
      int4[]   | '{{1,2},{3,4}}'::integer[]        | '{{1,2},{3,4}}'       | b | b
      varchar[] | '{}'::character varying[]        | '{}'                  | b | b
      float8[] | '{-0,NaN,1.5}'::double precision[] | '{-0.0,"NaN",1.5}'  | b | b
      float4[] | '{0.1}'::real[]                   | '{0.1}'               | b | b
      bool[]   | '{t,f}'::boolean[]                | '{true,false}'        | b | b
      mood[]   | '{happy,sad}'::mood[]             | '{"happy","sad"}'     | b | e
      """)
  void aConstantTravelsInItsWireFormAndReadsBackAsOneValue(String type, String catalog, String wire,
      String typeClass, String elemClass) {
    ColumnSpec spec = column(type, typeClass, elemClass, null);
    assertTrue(ConstantDefault.isConstant(catalog, spec, -1));
    assertEquals(wire, ConstantDefault.wireForm(catalog, spec, -1));
    Value fromWire = sinkValue(type, typeClass, elemClass, wire);
    assertEquals(fromWire, sinkValue(type, typeClass, elemClass, catalog), "an older source's text reads alike");
    assertEquals(wire, ConstantDefault.wireForm(wire, spec, -1), "the wire form is a fixed point");
  }

  /** Defaults the source backfills: not constants, or not exactly the log's value. */
  @ParameterizedTest(name = "{0} DEFAULT {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', nullValues = "-", textBlock = """
      timestamptz | now()                                           | b | -
      timestamptz | CURRENT_TIMESTAMP                               | b | -
      uuid        | gen_random_uuid()                               | b | -
      int8        | nextval('s'::regclass)                          | b | -
      text        | upper('a'::text)                                | b | -
      text        | ('-1'::integer)::text                           | b | -
      text        | E'a'                                            | b | -
      int4        | 1.7                                             | b | -
      int4        | (1.7)::integer                                  | b | -
      int4        | '1e3'::integer                                  | b | -
      int4        | true                                            | b | -
      int2        | 99999999999999999999                            | b | -
      numeric     | (1.7)::integer                                  | b | -
      numeric     | '0.1'::double precision                         | b | -
      numeric     | (1.5)::numeric(5)                               | b | -
      numeric     | '1e+300'::double precision                      | b | -
      float8      | '0.1'::real                                     | b | -
      float4      | '0.1'::double precision                         | b | -
      float4      | '1e300'::real                                   | b | -
      float8      | '0x1p3'::double precision                       | b | -
      text        | 'ab  '::bpchar                                  | b | -
      text        | (1.5)::character varying(2)                     | b | -
      bool        | 't'::boolean                                    | b | -
      mood        | 7                                               | e | -
      bytea       | '\\x'::bytea                                    | b | -
      timestamptz | '2020-01-01 00:00:00+00'::timestamp with time zone | b | -
      interval    | '1 day'::interval                               | b | -
      jsonb       | '{"a":1}'::jsonb                                | b | -
      uuid        | 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid    | b | -
      bpchar      | 'ab'::bpchar                                    | b | -
      time        | '03:04:05'::time without time zone              | b | -
      int4[]      | '[0:1]={1,2}'::integer[]                        | b | b
      int4[]      | ARRAY[1, 2]                                     | b | b
      int4[]      | '{1.5}'::integer[]                              | b | b
      float8[]    | '{0.1}'::real[]                                 | b | b
      timestamptz[] | '{"2025-01-01 00:00:00+00"}'::timestamp with time zone[] | b | b
      bytea[]     | '{"\\\\x00"}'::bytea[]                          | b | b
      """)
  void otherDefaultsAreRefused(String type, String catalog, String typeClass, String elemClass) {
    ColumnSpec spec = column(type, typeClass, elemClass, null);
    assertFalse(ConstantDefault.isConstant(catalog, spec, -1));
    assertNull(ConstantDefault.wireForm(catalog, spec, -1));
  }

  @ParameterizedTest(name = "{0} DEFAULT {1}")
  @CsvSource(delimiter = '|', textBlock = """
      int4     | NULL
      text     | NULL::text
      text[]   | null
      """)
  void aNullDefaultNeedsNoBackfillAndTravelsAsNone(String type, String catalog) {
    ColumnSpec spec = column(type, "b", "b", null);
    assertTrue(ConstantDefault.isConstant(catalog, spec, -1));
    assertTrue(ConstantDefault.isConstant(null, spec, -1), "no default at all");
    assertNull(ConstantDefault.wireForm(catalog, spec, -1));
    assertEquals(Value.NULL, sinkValue(type, "b", "b", catalog));
    assertEquals(Value.NULL, sinkValue(type, "b", "b", null));
  }

  /** numeric(10,2) DEFAULT 1.5 holds 1.50: the text does not show the rounding. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      numeric   | 1.5          | 655366 | false
      numeric   | 1.5          | -1     | true
      numeric[] | '{1.5}'      | 655366 | false
      int4      | 7            | 655366 | true
      """)
  void aConstrainedNumericIsBackfilled(String type, String catalog, int typmod, boolean constant) {
    assertEquals(constant, ConstantDefault.isConstant(catalog, column(type, "b", "b", null), typmod));
  }

  @ParameterizedTest(name = "{0} DEFAULT {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      int4   | 1.7
      int4   | now()
      bool   | 'yes'
      bytea  | '\\x00'
      int4[] | '[0:1]={1,2}'
      """)
  void theSinkRefusesWithTheColumnTypeAndDefault(String type, String dflt) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ConstantDefault.valueOf("price", column(type, "b", "b", dflt)));
    assertTrue(e.getMessage().contains("\"price\""), e.getMessage());
    assertTrue(e.getMessage().contains(type), e.getMessage());
    assertTrue(e.getMessage().contains(dflt), e.getMessage());
  }

  @org.junit.jupiter.api.Test
  void valuesAreTheChangeLogsValues() {
    assertEquals(new Value.Bool(true), sinkValue("bool", "b", null, "true::boolean"));
    assertEquals(Value.of("abc"), sinkValue("text", "b", null, "'abc'::text"));
    assertEquals(Value.of("it's"), sinkValue("varchar", "b", null, "'it''s'::character varying"));
    assertEquals(Value.of(-1), sinkValue("int8", "b", null, "(-1)::bigint"));
    assertEquals(Value.of(7), sinkValue("int4", "b", null, "'7'::integer"));
    assertEquals(Value.of("1.5"), sinkValue("numeric", "b", null, "1.5"));
    assertEquals(new Value.Float(1.5), sinkValue("float8", "b", null, "1.5"));
    assertEquals(new Value.Float(-0.0), sinkValue("float8", "b", null, "-0.0"));
    assertEquals(new Value.Float((double) 0.1f), sinkValue("float4", "b", null, "0.1"));
    assertEquals(Value.of("NaN"), sinkValue("float4", "b", null, "'NaN'"));
    assertEquals(Value.of("happy"), sinkValue("mood", "e", null, "'happy'"));
    assertEquals(new Value.Array(List.of(Value.of("a"), Value.of("b c"), Value.NULL)),
        sinkValue("text[]", "b", "b", "'{a,\"b c\",NULL}'::text[]"));
  }
}
