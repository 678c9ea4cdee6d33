package io.pg2lite.source.debezium;

import io.debezium.spi.converter.ConvertedField;
import io.debezium.spi.converter.CustomConverter;
import io.debezium.spi.converter.RelationalColumn;
import java.sql.Types;
import java.util.Properties;
import org.apache.kafka.connect.data.SchemaBuilder;

/**
 * Claims every array column for the value schema Debezium builds from a Relation message, so
 * that Debezium neither reads arrays nor warns about the ones it cannot read ("Unexpected JDBC
 * type '2003' for column ... that will be ignored", once per Relation message for
 * {@code interval[]}, {@code point[]}, composite arrays and the like: a warning from a healthy
 * pipeline, issue 30). pg2lite reads every array from Postgres' text ({@link TextReading}); the
 * converter registered here is never asked for a row's value, and answers null for the column
 * defaults Debezium may hand it while building the schema (pg2lite does not use them).
 */
final class ArraysReadAsText implements CustomConverter<SchemaBuilder, ConvertedField> {
  @Override
  public void configure(Properties props) {}

  @Override
  public void converterFor(ConvertedField field, ConverterRegistration<SchemaBuilder> registration) {
    if (field instanceof RelationalColumn column && column.jdbcType() == Types.ARRAY) {
      registration.register(SchemaBuilder.string().optional(), value -> null);
    }
  }
}
