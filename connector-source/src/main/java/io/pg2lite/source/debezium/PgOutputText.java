package io.pg2lite.source.debezium;

import io.debezium.connector.postgresql.connection.ReplicationMessage;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The text Postgres sent for one column of a pgoutput tuple, before Debezium resolves it to a
 * Java object. Debezium's pgoutput decoder keeps that text only inside its column objects (the
 * value captured by an anonymous class, {@code PgOutputMessageDecoder$1.valueStr}) and exposes
 * nothing but the resolved value; for timestamptz that resolution is a {@code DateTimeFormatter}
 * parse, which with the re-format after it was a sixth of the source task's thread (ADR 0015).
 *
 * <p>This is the one place that reads a Debezium internal by reflection. The Debezium version is
 * pinned, and {@code TemporalTextTest.debeziumsColumnTextIsReachable} fails when the field is gone, so a Debezium upgrade that
 * moves it is noticed in the build. At run time a missing field only costs speed: {@link #of}
 * answers null and the column takes Debezium's path as before.
 */
final class PgOutputText {
  private static final Logger LOG = LoggerFactory.getLogger(PgOutputText.class);
  private static final String COLUMN_CLASS =
      "io.debezium.connector.postgresql.connection.pgoutput.PgOutputMessageDecoder$1";
  private static final Class<?> COLUMN;
  private static final MethodHandle VALUE;

  static {
    Class<?> column = null;
    MethodHandle value = null;
    try {
      column = Class.forName(COLUMN_CLASS);
      java.lang.reflect.Field f = column.getDeclaredField("val$valueStr");
      f.setAccessible(true);
      value = MethodHandles.lookup().unreflectGetter(f)
          .asType(MethodType.methodType(String.class, Object.class));
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn("Debezium's pgoutput column text is not reachable ({}); timestamptz values take Debezium's "
          + "slower path", e.toString());
      column = null;
      value = null;
    }
    COLUMN = column;
    VALUE = value;
  }

  private PgOutputText() {}

  /** Whether this Debezium build exposes the text (the build checks it; see the class comment). */
  static boolean available() {
    return VALUE != null;
  }

  /**
   * The column's text as Postgres sent it, or null when it is SQL NULL, when the column does not
   * come from the pgoutput decoder, or when this Debezium build hides the text.
   */
  static String of(ReplicationMessage.Column c) {
    if (VALUE == null || c.getClass() != COLUMN) {
      return null;
    }
    try {
      return (String) VALUE.invokeExact((Object) c);
    } catch (Throwable t) {
      throw new IllegalStateException("reading the pgoutput text of column " + c.getName(), t);
    }
  }
}
