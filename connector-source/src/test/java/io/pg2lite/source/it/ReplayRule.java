package io.pg2lite.source.it;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.MessageKind;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays a change log the way every consumer must (docs/protocol.md): transactions whose begin
 * watermark is at or below the last applied commit are skipped, a rollback discards the open
 * transaction, a begin inside an open transaction is a violation. Returns the ids inserted, in
 * apply order, so tests can check that nothing was lost or applied twice.
 */
final class ReplayRule {
  private ReplayRule() {}

  /**
   * The data entries' messages (row and schema changes) of the transactions a consumer applies,
   * in apply order: replayed transactions and rolled-back ones are left out.
   */
  static List<Message> appliedChanges(List<ChangeLogEntry> log) {
    List<Message> applied = new ArrayList<>();
    List<Message> open = null;
    Watermark last = null;
    boolean skipping = false;
    for (ChangeLogEntry e : log) {
      switch (e.kind()) {
        case BEGIN -> {
          skipping = last != null && e.watermark().isAtOrBefore(last);
          open = new ArrayList<>();
        }
        case DATA -> open.add(e.message());
        case COMMIT -> {
          if (!skipping) {
            applied.addAll(open);
            last = e.watermark();
          }
          open = null;
        }
        default -> open = null; // rollback
      }
    }
    return applied;
  }

  static List<Long> insertedIds(List<ChangeLogEntry> log, String idColumn) {
    List<Long> applied = new ArrayList<>();
    List<Long> open = null;
    Watermark last = null;
    boolean skipping = false;
    for (ChangeLogEntry e : log) {
      MessageKind kind = e.kind();
      if (kind == MessageKind.BEGIN) {
        if (open != null) {
          throw new AssertionError("begin inside an open transaction at " + e.watermark());
        }
        skipping = last != null && e.watermark().isAtOrBefore(last);
        open = new ArrayList<>();
      } else if (kind == MessageKind.DATA) {
        if (open == null) {
          throw new AssertionError("data outside a transaction at " + e.watermark());
        }
        if (e.message() instanceof DataChange.Insert i) {
          open.add(((Value.Int) i.row().get(idColumn)).value());
        }
      } else if (kind == MessageKind.COMMIT) {
        if (open == null) {
          throw new AssertionError("commit outside a transaction at " + e.watermark());
        }
        if (!skipping) {
          if (last != null && !e.watermark().isAfter(last)) {
            throw new AssertionError("commit " + e.watermark() + " not after " + last);
          }
          applied.addAll(open);
          last = e.watermark();
        }
        open = null;
      } else {
        open = null; // rollback
      }
    }
    return applied;
  }
}
