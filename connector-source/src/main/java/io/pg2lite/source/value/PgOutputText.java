package io.pg2lite.source.value;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The text Postgres sent for one column of a pgoutput tuple, before Debezium resolves it to a
 * Java object. Debezium's pgoutput decoder keeps that text only inside its column objects (the
 * value captured by an anonymous class, {@code PgOutputMessageDecoder$1.valueStr}) and exposes
 * nothing but the resolved value, which for dates, times, arrays and a few other types is wrong
 * or fails (issue 32); the source reads those values from this text instead
 * ({@code debezium.TextReading}), with the mapping a backfill copy uses.
 *
 * <p>This is the one place that reads a Debezium internal by reflection. The Debezium version is
 * pinned, and {@code PgOutputTextTest} fails when the field is gone, so a Debezium upgrade that
 * moves it is noticed in the build. At run time the source refuses to start without it
 * ({@link #requireAvailable}): Debezium's readings of those values are not a fallback, they are
 * the bugs this reading replaced.
 */
public final class PgOutputText {
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
      LOG.debug("Debezium's pgoutput column text is not reachable", e);
      column = null;
      value = null;
    }
    COLUMN = column;
    VALUE = value;
  }

  private PgOutputText() {}

  /** Whether this Debezium build exposes the text (the build checks it; see the class comment). */
  public static boolean available() {
    return VALUE != null;
  }

  /** Refuses to read a stream when this Debezium build hides the text: values would be misread. */
  public static void requireAvailable() {
    if (VALUE == null) {
      throw new org.apache.kafka.connect.errors.ConnectException("the Debezium on this worker does not keep pgoutput's "
          + "column text (" + COLUMN_CLASS + ".val$valueStr), which pg2lite reads dates, times and arrays from: "
          + "install the plugin archive with the Debezium it was built with");
    }
  }

  /**
   * The column's text as Postgres sent it, or null when it is SQL NULL or the column does not
   * come from the pgoutput decoder (or, before {@link #requireAvailable}, this build hides it).
   *
   * @param column a {@code ReplicationMessage.Column} of Debezium's decoder (taken as an Object:
   *     this package reads Debezium's internals by name only, and imports none of its types)
   */
  public static String of(Object column) {
    if (VALUE == null || column.getClass() != COLUMN) {
      return null;
    }
    try {
      return (String) VALUE.invokeExact(column);
    } catch (Throwable t) {
      throw new IllegalStateException("reading the pgoutput text of a column of " + COLUMN_CLASS, t);
    }
  }
}
