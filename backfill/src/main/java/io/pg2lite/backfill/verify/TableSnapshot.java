package io.pg2lite.backfill.verify;

import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.Collection;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * One table in a snapshot taken for a verification. It stays open from the scan until the
 * source's message is written, because the rows touched meanwhile are looked up in it and taken
 * out; while open it holds the table's ACCESS SHARE lock (DDL on the table waits).
 */
public interface TableSnapshot extends AutoCloseable {
  /** The watermark of the snapshot's log position. */
  Watermark watermark();

  /**
   * Reads every row (of {@code range}, when given) into new digests; {@code paced} is told of each
   * batch's row count before the next is read, and may sleep.
   */
  TableDigests scan(Verify.KeyRange range, LongConsumer paced) throws Exception;

  /** Takes out of {@code digests} the snapshot's rows with these row keys (of {@code range}). */
  void exclude(TableDigests digests, Collection<List<Value>> keys, Verify.KeyRange range) throws Exception;

  @Override
  void close();
}
