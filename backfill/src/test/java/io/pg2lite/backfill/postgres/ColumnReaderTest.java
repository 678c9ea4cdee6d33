package io.pg2lite.backfill.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.protocol.value.TextForm;
import io.pg2lite.protocol.value.Value;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Postgres' text of dates and times (DateStyle ISO, TimeZone UTC) in the log's form, as the copy reads it. */
class ColumnReaderTest {
  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      DATE        | 2025-01-02                          | 2025-01-02
      DATE        | 0044-03-15 BC                       | -0043-03-15
      DATE        | 0001-01-01 BC                       | 0000-01-01
      DATE        | 123456-07-08                        | 123456-07-08
      TIMESTAMP   | 2025-01-02 03:04:05.5               | 2025-01-02T03:04:05.5
      TIMESTAMP   | 0002-06-30 23:00:00 BC              | -0001-06-30T23:00:00
      TIMESTAMPTZ | 0001-12-31 22:22:28.295371+00 BC    | 0000-12-31T22:22:28.295371Z
      TIMESTAMPTZ | 10000-01-01 00:00:00+00             | 10000-01-01T00:00:00Z
      """)
  void datesAndTimesUseIsoAstronomicalYearsLikeTheLiveStream(TextForm form, String postgres, String log)
      throws Exception {
    ColumnReader reader = ColumnReader.of(new ColumnType(form.name().toLowerCase(), null));
    java.sql.ResultSet row = (java.sql.ResultSet) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {java.sql.ResultSet.class}, (proxy, method, args) -> method.getName().equals("getString") ? postgres : null);
    assertEquals(Value.of(log), reader.read(row, 1));
  }
}
