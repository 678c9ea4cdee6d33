package io.pg2lite.backfill.copy;

import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.List;

/**
 * One table's rows, read from a snapshot taken at an exact log position. Rows come in the order
 * {@code relation().rowKey().columns()} then {@link #columns()}, a bounded batch at a time, so a
 * copy of any size runs in bounded memory.
 */
public interface TableCopy extends AutoCloseable {
  /** The watermark of the snapshot's log position: every change committed before it is in the rows. */
  Watermark snapshot();

  /** The table, with the row-key columns the snapshot was validated against. */
  Relation relation();

  /** The copied columns, row-key columns excluded. */
  List<String> columns();

  /**
   * More rows: up to {@code maxRows}, and no more once their values add up to about
   * {@code maxBytes} (at least one row); an empty list once every row was read. The byte bound
   * keeps a backfill record under Kafka's record size limit however wide the rows are.
   */
  List<List<Value>> next(int maxRows, long maxBytes) throws Exception;

  /**
   * Whether every row has been read, when the copy can tell without another {@link #next} (which
   * would then return an empty list): a small table completes in the batch that read it.
   */
  default boolean finished() {
    return false;
  }

  /** Rows read so far, and in the snapshot. */
  BackfillStatus status();

  @Override
  void close();
}
