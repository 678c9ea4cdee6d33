package io.pg2lite.connect.kafka.hanging;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * The gate of a read_committed reader of the change log (the sink): a look is worth it only when
 * the reader has been given nothing for {@code quiet} while the partition's last stable offset is
 * below its high watermark, i.e. an open transaction holds back what the reader may read. The rule's
 * own idle bound then only reports a transaction whose producer has not written for 30 s, so the
 * last stable offset has sat at its start for at least that long.
 *
 * <p>{@link #delivered} is called by the reader's thread, {@link #decide} by the watch's.
 */
public final class ReaderStall implements LookGate {
  private final LongSupplier nanoClock;
  private final long quietNanos;
  private volatile long lastDelivery;

  public ReaderStall(Duration quiet) {
    this(quiet, System::nanoTime);
  }

  ReaderStall(Duration quiet, LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    this.quietNanos = quiet.toNanos();
    this.lastDelivery = nanoClock.getAsLong(); // a reader just started has been given nothing yet either
  }

  /** The reader was given records. */
  public void delivered() {
    lastDelivery = nanoClock.getAsLong();
  }

  /** The reader has been given nothing for the quiet time. */
  @Override
  public boolean due() {
    return nanoClock.getAsLong() - lastDelivery >= quietNanos;
  }

  @Override
  public Decision decide(Admin admin, List<TopicPartition> partitions) throws Exception {
    Map<TopicPartition, ListOffsetsResultInfo> high = ends(admin, partitions, IsolationLevel.READ_UNCOMMITTED);
    Map<TopicPartition, ListOffsetsResultInfo> stable = ends(admin, partitions, IsolationLevel.READ_COMMITTED);
    for (TopicPartition tp : partitions) {
      if (stable.get(tp).offset() < high.get(tp).offset()) {
        return Decision.LOOK;
      }
    }
    return Decision.NOTHING_PINNED;
  }

  private static Map<TopicPartition, ListOffsetsResultInfo> ends(Admin admin, List<TopicPartition> partitions,
      IsolationLevel isolation) throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
    try {
      return HangingTransactionRule.get(admin.listOffsets(latest, new ListOffsetsOptions(isolation)).all());
    } catch (ExecutionException e) {
      throw HangingTransactionRule.refused(e, "Describe on Topic " + partitions.get(0).topic());
    }
  }
}
