package io.pg2lite.protocol.message;

import java.time.Instant;

/**
 * Closes a transaction. The record's watermark is the commit watermark (LexiVersion of the commit
 * LSN, or {@code M.k} for a backfill transaction); the replica stores it as its state version.
 *
 * @param changes the number of change records between begin and this commit; a consumer that
 *     counted a different number has lost or duplicated a record and must stop
 * @param commitTime the upstream commit time, or null when unknown (backfill transactions)
 */
public record Commit(long changes, Instant commitTime) implements Message {
  @Override
  public MessageKind kind() {
    return MessageKind.COMMIT;
  }

  @Override
  public String tag() {
    return "commit";
  }
}
