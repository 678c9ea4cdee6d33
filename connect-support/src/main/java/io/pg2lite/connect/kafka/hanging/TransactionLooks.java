package io.pg2lite.connect.kafka.hanging;

import java.util.List;
import java.util.Optional;

/**
 * Where a {@link HangingTransactionWatch} looks and aborts: Kafka through an Admin client
 * ({@link AdminTransactionLooks}), or a script in a unit test. Called by the watch's thread only.
 */
public interface TransactionLooks extends AutoCloseable {
  /**
   * The hanging transactions by the rule ({@link HangingTransactionRule}), as seen now; empty when
   * this is no time to look (the {@link LookGate} is not {@link LookGate#due}): no news
   * either way.
   *
   * @throws MissingAclException when Kafka refuses a call for want of an ACL
   * @throws Exception any other failure: no finding this time
   */
  Optional<List<HangingTransaction>> look() throws Exception;

  /** Writes the abort marker of {@code h} ({@link HangingTransactionRule#abort}). */
  void abort(HangingTransaction h) throws Exception;

  /** The topics the last look was about, for the metrics ("" before the first). */
  String watched();

  @Override
  void close();
}
