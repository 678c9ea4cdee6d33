package io.pg2lite.source.lineage;

import io.pg2lite.connect.kafka.ChangeLogPartition;
import io.pg2lite.connect.kafka.StrandedReplica;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds replicas stranded on the change log: consumer groups whose committed offset on it carries
 * the mark of a sink (or follower) that lost records to retention ({@link StrandedReplica}).
 *
 * <p>Which marks count ({@link #decide}): only groups with members (a deleted sink's group keeps
 * its last commit for days and must never start a lineage), only marks naming the source's
 * current lineage (a replica stranded on an older one is followed by the new lineage already),
 * and only offsets the topic no longer holds (a replica that can still read its records is not
 * stranded, whatever its metadata says). Nothing is looked at while the log start is 0: no record
 * was ever deleted.
 */
public final class StrandedReplicas {
  private static final Logger LOG = LoggerFactory.getLogger(StrandedReplicas.class);

  /** One group's view of the change log. */
  public record Group(String id, boolean hasMembers, OffsetAndMetadata committed) {}

  private final ChangeLogPartition log;
  private final TopicPartition tp;
  private boolean deniedSaid;

  public StrandedReplicas(ChangeLogPartition log, String topic) {
    this.log = log;
    this.tp = new TopicPartition(topic, 0);
  }

  /**
   * Why a new lineage is needed, naming the first stranded replica of {@code currentVersion} in
   * {@code groups}; empty when none is.
   */
  public static Optional<String> decide(TopicPartition tp, String currentVersion, long logStart,
      Collection<Group> groups) {
    for (Group g : groups) {
      if (!g.hasMembers() || g.committed() == null) {
        continue;
      }
      Optional<StrandedReplica> mark = StrandedReplica.parse(g.committed().metadata());
      if (mark.isPresent() && mark.get().replicaVersion().equals(currentVersion) && mark.get().needs() < logStart) {
        return Optional.of("consumer group " + g.id() + " is stranded: its replica (replica version " + currentVersion
            + ") needs change-log record offset " + mark.get().needs() + ", but " + tp + " now starts at offset "
            + logStart + " (the records in between were deleted)");
      }
    }
    return Optional.empty();
  }

  /** Looks at the cluster's groups now; empty when no replica is stranded or the groups cannot be read. */
  public Optional<String> look(String currentVersion) {
    try {
      OptionalLong start = log.logStart(tp);
      if (start.isEmpty() || start.getAsLong() == 0) {
        return Optional.empty();
      }
      return decide(tp, currentVersion, start.getAsLong(), groups());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      if (cause instanceof AuthorizationException) {
        sayDenied(cause.getMessage());
      } else {
        LOG.debug("Cannot look for stranded replicas on {} now", tp, e);
      }
      return Optional.empty();
    }
  }

  private void sayDenied(String what) {
    if (!deniedSaid) {
      deniedSaid = true;
      LOG.warn("resync.auto cannot read every consumer group's offsets on {}: {}. A replica in a group the source "
          + "may not read waits for a resync by hand when it loses records to retention. Allow the source's "
          + "principal (its kafka.* settings) Describe on those groups, e.g. a prefixed ACL on connect- for "
          + "Connect's sink groups; Kafka lists only the groups a principal may Describe", tp, what);
    }
  }

  /**
   * The groups with members and their committed offset on the change log (one batched fetch). A
   * group that does not answer is left out of this look rather than failing it: one group the
   * source may not Describe (listed because it may Describe the cluster), or deleted since the
   * list, must not hide the others.
   */
  private List<Group> groups() throws ExecutionException, InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ChangeLogPartition.TIMEOUT_MS);
    try (Admin admin = Admin.create(log.clientProps())) {
      List<String> ids = admin.listConsumerGroups().all().get(ChangeLogPartition.TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .stream().map(ConsumerGroupListing::groupId).toList();
      if (ids.isEmpty()) {
        return List.of();
      }
      Set<String> denied = new TreeSet<>();
      Map<String, ConsumerGroupDescription> described = answered(admin.describeConsumerGroups(ids).describedGroups(),
          deadline, denied);
      List<String> withMembers = ids.stream().filter(id -> described.containsKey(id)
          && !described.get(id).members().isEmpty()).toList();
      Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets = Map.of();
      if (!withMembers.isEmpty()) {
        Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
        withMembers.forEach(id -> specs.put(id, new ListConsumerGroupOffsetsSpec().topicPartitions(List.of(tp))));
        ListConsumerGroupOffsetsResult fetched = admin.listConsumerGroupOffsets(specs);
        Map<String, KafkaFuture<Map<TopicPartition, OffsetAndMetadata>>> perGroup = new HashMap<>();
        withMembers.forEach(id -> perGroup.put(id, fetched.partitionsToOffsetAndMetadata(id)));
        offsets = answered(perGroup, deadline, denied);
      }
      if (!denied.isEmpty()) {
        sayDenied("not authorized to Describe " + denied.size() + " consumer group(s), first "
            + denied.iterator().next());
      }
      List<Group> out = new ArrayList<>();
      for (String id : withMembers) {
        out.add(new Group(id, true, offsets.getOrDefault(id, Map.of()).get(tp)));
      }
      return out;
    }
  }

  /**
   * The answers of the groups that gave one by {@code deadline} (System.nanoTime()); the ids of
   * those the source may not read are added to {@code denied}, other failures only logged.
   *
   * @throws TimeoutException when a group has not answered by the deadline: the look is unknown
   */
  static <T> Map<String, T> answered(Map<String, KafkaFuture<T>> perGroup, long deadline, Set<String> denied)
      throws InterruptedException, TimeoutException {
    Map<String, T> out = new HashMap<>();
    for (Map.Entry<String, KafkaFuture<T>> e : perGroup.entrySet()) {
      try {
        out.put(e.getKey(), e.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      } catch (ExecutionException failed) {
        if (failed.getCause() instanceof AuthorizationException) {
          denied.add(e.getKey());
        } else {
          LOG.debug("Consumer group {} left out of this look for stranded replicas", e.getKey(), failed.getCause());
        }
      }
    }
    return out;
  }
}
