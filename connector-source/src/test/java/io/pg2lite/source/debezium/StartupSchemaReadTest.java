package io.pg2lite.source.debezium;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;

class StartupSchemaReadTest {
  private static Throwable thrownAt(String className, String method, String message) {
    IllegalArgumentException e = new IllegalArgumentException(message);
    e.setStackTrace(new StackTraceElement[] {
        new StackTraceElement("io.debezium.relational.TableEditorImpl", "updatePrimaryKeys", "TableEditorImpl.java", 109),
        new StackTraceElement(className, method, "X.java", 91)});
    return e;
  }

  @Test
  void aFailureInsideDebeziumsSchemaRefreshIsRecognisedThroughItsWrapper() {
    Throwable cause = thrownAt("io.debezium.connector.postgresql.PostgresSchema", "refresh",
        "The column \"k\" is referenced as PRIMARY KEY, but a matching column is not defined in table \"public.t\"!");
    assertTrue(StartupSchemaRead.failed(new ConnectException("An exception occurred in the change event producer", cause)));
  }

  @Test
  void otherFailuresAreNot() {
    assertFalse(StartupSchemaRead.failed(thrownAt("io.debezium.connector.postgresql.PostgresSchema", "applySchemaChangesForTable",
        "x")), "a failure while streaming is not a start-up read");
    assertFalse(StartupSchemaRead.failed(new ConnectException("password authentication failed")));
  }
}
