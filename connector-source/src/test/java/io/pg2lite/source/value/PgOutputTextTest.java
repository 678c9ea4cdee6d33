package io.pg2lite.source.value;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PgOutputTextTest {
  @Test
  void debeziumsColumnTextIsReachable() {
    // Dates, times, arrays and the types Debezium misreads are read from the text Debezium's
    // pgoutput column keeps: a Debezium upgrade that moves it must fail here, in the build.
    assertTrue(PgOutputText.available(), "PgOutputMessageDecoder$1.valueStr not found in this Debezium build");
  }
}
