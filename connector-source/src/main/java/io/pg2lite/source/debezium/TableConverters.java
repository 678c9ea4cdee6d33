package io.pg2lite.source.debezium;

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
 * One table's value converters, column by column, in the order of the row Debezium would build:
 * the fields of the table's value schema, each with its Connect schema (type, logical name, the
 * source-type parameter the mapping reads) and the converter Debezium's {@code TableSchemaBuilder}
 * gives it ({@code ValueConverterProvider.converter(column, field)}; pg2lite configures no custom
 * converters and no column mappers that convert values).
 *
 * <p>Built once per Relation message (Debezium replaces a table's {@link TableSchema} on each), so
 * a row is converted without the Connect {@code Struct} that {@code TableSchema.valueFromColumnData}
 * builds and validates per row: the values are the converters' own, unchanged.
 */
final class TableConverters {
  final TableSchema source;
  final String[] names;
  final Schema[] schemas;
  /** Null where Debezium has no converter: the field's value is then always null, as in its struct. */
  final ValueConverter[] converters;
  private final Map<String, Integer> indexes = new HashMap<>();

  TableConverters(Table table, TableSchema tableSchema, ValueConverterProvider provider) {
    this.source = tableSchema;
    List<Field> fields = tableSchema.valueSchema().fields();
    names = new String[fields.size()];
    schemas = new Schema[fields.size()];
    converters = new ValueConverter[fields.size()];
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      Column column = table.columnWithName(f.name());
      names[i] = f.name();
      schemas[i] = f.schema();
      converters[i] = column == null ? null : provider.converter(column, f);
      indexes.put(f.name(), i);
    }
  }

  /** The position of a column in {@link #names}, or -1 when the value schema has no such field. */
  int indexOf(String column) {
    Integer i = indexes.get(column);
    return i == null ? -1 : i;
  }
}
