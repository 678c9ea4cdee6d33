package io.pg2lite.source.debezium;

import io.debezium.connector.postgresql.PostgresType;
import io.debezium.relational.Column;
import io.debezium.relational.Table;
import io.debezium.relational.TableSchema;
import io.debezium.relational.ValueConverter;
import io.debezium.relational.ValueConverterProvider;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;

/**
 * One table's value converters, column by column, in the order of the Relation message's columns:
 * each with the Connect schema of its field in the table's value schema (type, logical name, the
 * source-type parameter the mapping reads) and the converter Debezium's {@code TableSchemaBuilder}
 * gives it ({@code ValueConverterProvider.converter(column, field)}; pg2lite configures no custom
 * converters and no column mappers that convert values). A column Debezium left out of the value
 * schema (a type it has no converter for, such as {@code interval[]}) has neither, and is read from
 * Postgres' text ({@link TextReading}).
 *
 * <p>Built once per Relation message (Debezium replaces a table's {@link TableSchema} on each), so
 * a row is converted without the Connect {@code Struct} that {@code TableSchema.valueFromColumnData}
 * builds and validates per row: the values are the converters' own, unchanged.
 */
final class TableConverters {
  final TableSchema source;
  final String[] names;
  /** Null where Debezium has no field for the column. */
  final Schema[] schemas;
  /** Null where Debezium has no converter: the field's value is then always null, as in its struct. */
  final ValueConverter[] converters;
  private final Map<String, Integer> indexes = new HashMap<>();
  /** Each column's {@link TextReading}, decided from its first value (null: not yet). */
  private final TextReading[] readings;

  /**
   * @param upstreamName the upstream name of a column as the decoder names it
   *     ({@link CaseDistinctRelations}: the decoder's names of case-colliding columns are marked)
   */
  TableConverters(Table table, TableSchema tableSchema, ValueConverterProvider provider,
      java.util.function.UnaryOperator<String> upstreamName) {
    this.source = tableSchema;
    List<Column> columns = table.columns();
    names = new String[columns.size()];
    schemas = new Schema[columns.size()];
    converters = new ValueConverter[columns.size()];
    readings = new TextReading[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      Column column = columns.get(i);
      Field f = tableSchema.valueSchema().field(column.name());
      names[i] = upstreamName.apply(column.name()); // the row's name; lookups use the decoder's
      schemas[i] = f == null ? null : f.schema();
      converters[i] = f == null ? null : provider.converter(column, f);
      indexes.put(column.name(), i);
    }
  }

  /**
   * How the column at {@code i} is read; {@code type} is the type its values arrive with, the same
   * for every value until the next Relation message replaces these converters.
   */
  TextReading reading(int i, PostgresType type) {
    TextReading r = readings[i];
    if (r == null) {
      r = TextReading.of(type, schemas[i]);
      readings[i] = r;
    }
    return r;
  }

  /** The position of a column in {@link #names}, or -1 when the value schema has no such field. */
  int indexOf(String column) {
    Integer i = indexes.get(column);
    return i == null ? -1 : i;
  }
}
