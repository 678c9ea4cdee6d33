package io.pg2lite.connect.kafka.hanging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTransactionsResult;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The rule that finds hanging Kafka transactions (KIP-664), and Kafka's remedy for one. A
 * transaction is hanging when
 * <ol>
 *   <li>a partition holds it open ({@code describeProducers}: its producer has a transaction start offset there),</li>
 *   <li>the producer's coordinator, found through {@code listTransactions} filtered by producer id and asked with
 *       {@code describeTransactions}, does not have a transaction of that producer open on that partition (in
 *       state Ongoing or Prepare*, with the partition among its partitions), and</li>
 *   <li>the producer has not written to the partition for {@code minIdle}: a coordinator that does not answer for
 *       a moment (no leader yet for its partition) must not make a live transaction look hanging. Kafka's
 *       {@code kafka-transactions.sh find-hanging --max-transaction-timeout} is the same kind of guard.</li>
 * </ol>
 * One look can catch a coordinator between two steps of a commit, so a caller acts only on what a
 * second look, some seconds later, still finds ({@link HangingTransaction#sameAs}).
 *
 * <p>Only read-only calls, except {@link #abort}. Kafka leaves out of its answers to
 * {@code listTransactions} the transactional ids a principal may not describe, without an error:
 * to such a principal every idle open transaction would look hanging. So a look also describes the
 * transactional ids its caller knows to write there, and a refusal ends the look with a
 * {@link MissingAclException} instead of a finding.
 *
 * <p>A broker restart left such a transaction now and then in the test kit's single-broker
 * restarts, with transaction version 2 (ADR 0018): it blocks Connect's own start-up of a source
 * whose offsets topic holds it, before any pg2lite code runs, and stalls every read_committed
 * reader of the change log.
 */
public final class HangingTransactionRule {
  /** How long one Admin call may take. */
  static final long TIMEOUT_MS = 10_000;
  /** Coordinator states in which a transaction is still open on its partitions. */
  private static final Set<TransactionState> OPEN = Set.of(TransactionState.ONGOING,
      TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE);

  private HangingTransactionRule() {}

  /** The partitions of {@code topics}, in order; a topic that does not exist (yet) has none. */
  public static List<TopicPartition> partitions(Admin admin, Collection<String> topics) throws Exception {
    List<TopicPartition> out = new ArrayList<>();
    for (Map.Entry<String, KafkaFuture<TopicDescription>> t
        : admin.describeTopics(new TreeSet<>(topics)).topicNameValues().entrySet()) {
      try {
        TopicDescription d = get(t.getValue());
        d.partitions().forEach(p -> out.add(new TopicPartition(d.name(), p.partition())));
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw refused(e, "Describe on Topic " + t.getKey());
        }
      }
    }
    out.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
    return out;
  }

  /**
   * The hanging transactions on {@code partitions}, as seen now ({@code nowMs}).
   *
   * @param transactionalIds the transactional ids known to write to these partitions, which this
   *     principal must be allowed to describe for the look to count (empty: none known)
   * @throws MissingAclException when Kafka refuses a call for want of an ACL
   * @throws Exception any other failure of a call: no finding this time
   */
  public static List<HangingTransaction> find(Admin admin, Collection<TopicPartition> partitions,
      Collection<String> transactionalIds, Duration minIdle, long nowMs) throws Exception {
    if (partitions.isEmpty()) {
      return List.of();
    }
    // Partitions first, coordinators second: a transaction that begins between the two reads is
    // not open in the first. One that ends between them looks hanging for this look only: by the
    // second look its partitions no longer hold it open.
    Map<TopicPartition, List<ProducerState>> open = new HashMap<>();
    try {
      get(admin.describeProducers(partitions).all()).forEach((tp, d) -> open.put(tp, d.activeProducers()));
    } catch (ExecutionException e) {
      throw refused(e, "Read on Topic " + String.join(", ", new TreeSet<>(partitions.stream()
          .map(TopicPartition::topic).toList())));
    }
    long idleSinceMs = nowMs - minIdle.toMillis();
    Set<Long> producers = new HashSet<>();
    open.values().forEach(states -> states.stream().filter(s -> isIdleOpen(s, idleSinceMs))
        .forEach(s -> producers.add(s.producerId())));
    if (producers.isEmpty()) {
      return List.of();
    }
    return hanging(open, coordinators(admin, producers, transactionalIds), idleSinceMs);
  }

  /**
   * What the coordinators have for {@code producers}, by transactional id: only the ids of these
   * producers (fewer calls, and none about ids that may expire between the listing and the
   * description), and the known {@code transactionalIds}, which must be describable.
   */
  private static Map<String, TransactionDescription> coordinators(Admin admin, Set<Long> producers,
      Collection<String> transactionalIds) throws Exception {
    Set<String> listed = new HashSet<>();
    for (TransactionListing l
        : get(admin.listTransactions(new ListTransactionsOptions().filterProducerIds(producers)).all())) {
      listed.add(l.transactionalId());
    }
    Set<String> asked = new HashSet<>(listed);
    asked.addAll(transactionalIds);
    if (asked.isEmpty()) {
      return Map.of();
    }
    DescribeTransactionsResult described = admin.describeTransactions(asked);
    Map<String, TransactionDescription> out = new HashMap<>();
    for (String id : asked) {
      try {
        out.put(id, get(described.description(id)));
      } catch (ExecutionException e) {
        if (listed.contains(id) || !(e.getCause() instanceof TransactionalIdNotFoundException)) {
          throw refused(e, "Describe on TransactionalId " + id);
        } // a known id its coordinator does not have (yet, or any more): allowed, and nothing to compare
      }
    }
    return out;
  }

  private static boolean isIdleOpen(ProducerState s, long idleSinceMs) {
    return s.currentTransactionStartOffset().isPresent() && s.lastTimestamp() <= idleSinceMs;
  }

  /**
   * The rule on what a look read: each transaction open on a partition, whose producer last wrote
   * there at or before {@code idleSinceMs}, and whose producer has no transaction at its coordinator
   * that is open on that partition.
   *
   * @param coordinators what the coordinators have, by transactional id
   */
  static List<HangingTransaction> hanging(Map<TopicPartition, List<ProducerState>> open,
      Map<String, TransactionDescription> coordinators, long idleSinceMs) {
    Map<Long, Map.Entry<String, TransactionDescription>> byProducer = new HashMap<>();
    coordinators.entrySet().forEach(e -> byProducer.put(e.getValue().producerId(), e));
    List<HangingTransaction> out = new ArrayList<>();
    open.forEach((tp, states) -> {
      for (ProducerState s : states) {
        if (!isIdleOpen(s, idleSinceMs)) {
          continue;
        }
        Map.Entry<String, TransactionDescription> c = byProducer.get(s.producerId());
        TransactionDescription d = c == null ? null : c.getValue();
        if (d == null || !OPEN.contains(d.state()) || !d.topicPartitions().contains(tp)) {
          out.add(new HangingTransaction(tp, s.producerId(), s.producerEpoch(), s.coordinatorEpoch().orElse(0),
              s.currentTransactionStartOffset().getAsLong(), s.lastTimestamp(), says(s.producerId(), c)));
        }
      }
    });
    out.sort(Comparator.comparing((HangingTransaction h) -> h.partition().topic())
        .thenComparingInt(h -> h.partition().partition()).thenComparingLong(HangingTransaction::producerId));
    return out;
  }

  /** What the coordinator says about the producer, in words. */
  private static String says(long producerId, Map.Entry<String, TransactionDescription> c) {
    if (c == null) {
      return "no coordinator has a transaction of producer " + producerId;
    }
    TransactionDescription d = c.getValue();
    return "its coordinator has transactional id " + c.getKey() + " " + d.state() + " at epoch " + d.producerEpoch()
        + (d.topicPartitions().isEmpty() ? ", open on no partition" : ", open on " + d.topicPartitions());
  }

  /**
   * Writes the abort marker of {@code h}, as {@code kafka-transactions.sh abort} does: its records
   * are dropped for read_committed readers and the partition's last stable offset moves on. Not
   * read-only: it needs Alter (or ClusterAction) on the Cluster.
   */
  public static void abort(Admin admin, HangingTransaction h) throws Exception {
    try {
      get(admin.abortTransaction(new AbortTransactionSpec(h.partition(), h.producerId(), (short) h.producerEpoch(),
          h.coordinatorEpoch())).all());
    } catch (ExecutionException e) {
      throw refused(e, "Alter on Cluster (or ClusterAction on Cluster)");
    }
  }

  /** A refusal for want of an ACL as a {@link MissingAclException} naming {@code acl}; else the failure itself. */
  static Exception refused(ExecutionException e, String acl) {
    return e.getCause() instanceof AuthorizationException a ? new MissingAclException(acl, a) : e;
  }

  static <T> T get(KafkaFuture<T> f) throws ExecutionException, InterruptedException, TimeoutException {
    return f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
  }
}
