package io.pg2lite.connect.kafka.hanging;

import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;

/**
 * Whether a look is worth its Admin calls now. A worker's watch always looks; a reader of the
 * change log looks only while it is stalled ({@link ReaderStall}).
 */
@FunctionalInterface
public interface LookGate {
  /** What the gate says, once the look is {@link #due}. */
  enum Decision {
    /** Look: apply the rule. */
    LOOK,
    /** Nothing pins the partitions (no open transaction holds back their last stable offset): nothing hangs. */
    NOTHING_PINNED
  }

  /** Always look. */
  LookGate ALWAYS = (admin, partitions) -> Decision.LOOK;

  /** A first answer before any Admin call: false skips this look, with no news either way (the reader is reading). */
  default boolean due() {
    return true;
  }

  Decision decide(Admin admin, List<TopicPartition> partitions) throws Exception;
}
