package io.pg2lite.testkit.connect;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * What a test prints when a pipeline stopped moving and it cannot tell why from the replica
 * alone: the connectors' states, the Kafka transactions still open (an open one holds every
 * read_committed reader of its partitions at the last stable offset), the gap between the high
 * watermark and the last stable offset of the topics that matter, and where the worker's threads
 * are. Each part is gathered on its own, so a broker that does not answer still leaves the
 * thread part, which needs no server. A transaction open on a partition (offsets part) that its
 * coordinator does not have open there (open transactions part) is hanging; connect-support's
 * {@code HangingTransactionRule} says so in one line, for a test that can depend on it.
 */
public final class StallReport {
  private static final long TIMEOUT_SECONDS = 10;

  private StallReport() {}

  /** The report, for an assertion message; {@code topics} are the topics whose offsets matter. */
  public static String of(WorkerHandle worker, Admin admin, List<String> connectors, List<String> topics) {
    StringBuilder out = new StringBuilder("\n--- stall report ---\n");
    for (String c : connectors) {
      out.append(section("status " + c, () -> worker.rest().status(c).toString()));
    }
    out.append(section("open transactions", () -> openTransactions(admin)));
    out.append(section("offsets (high watermark / last stable)", () -> offsets(admin, topics)));
    out.append(section("threads", worker::threads));
    return out.toString();
  }

  private interface Part {
    String get() throws Exception;
  }

  private static String section(String title, Part part) {
    String body;
    try {
      body = part.get();
    } catch (Exception e) {
      body = "unavailable: " + e;
    }
    return title + ": " + body + "\n";
  }

  private static String openTransactions(Admin admin) throws Exception {
    List<String> ids = new ArrayList<>();
    for (TransactionListing t : admin.listTransactions().all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      ids.add(t.transactionalId());
    }
    if (ids.isEmpty()) {
      return "none";
    }
    StringBuilder out = new StringBuilder();
    long now = System.currentTimeMillis();
    for (Map.Entry<String, TransactionDescription> e
        : admin.describeTransactions(ids).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).entrySet()) {
      TransactionDescription d = e.getValue();
      out.append("\n  ").append(e.getKey()).append(' ').append(d.state())
          .append(" epoch ").append(d.producerEpoch())
          .append(" timeout ").append(d.transactionTimeoutMs()).append(" ms");
      d.transactionStartTimeMs().ifPresent(start -> out.append(" open for ").append(now - start).append(" ms"));
      out.append(' ').append(d.topicPartitions());
    }
    return out.toString();
  }

  private static String offsets(Admin admin, List<String> topics) throws Exception {
    Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
    for (var d : admin.describeTopics(topics).allTopicNames().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).values()) {
      d.partitions().forEach(p -> specs.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
    }
    var high = admin.listOffsets(specs, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)).all()
        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    var stable = admin.listOffsets(specs, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    // What each partition's leader holds open, whatever the transaction coordinators say: a
    // transaction open here but unknown to its coordinator is one that nothing will abort.
    var producers = admin.describeProducers(specs.keySet()).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    StringBuilder out = new StringBuilder();
    for (TopicPartition tp : specs.keySet()) {
      out.append("\n  ").append(tp).append(' ').append(high.get(tp).offset()).append(" / ")
          .append(stable.get(tp).offset());
      for (var state : producers.get(tp).activeProducers()) {
        state.currentTransactionStartOffset().ifPresent(start -> out.append("; producer ").append(state.producerId())
            .append(" epoch ").append(state.producerEpoch()).append(" open from offset ").append(start));
      }
    }
    return out.toString();
  }
}
