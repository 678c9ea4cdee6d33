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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
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
      if (cause instanceof AuthorizationException && !deniedSaid) {
        deniedSaid = true;
        LOG.warn("resync.auto cannot look for stranded replicas on {}: {}. Allow the source's principal Describe on "
            + "the cluster's consumer groups (and Describe of their offsets), or replicas that lost records to "
            + "retention wait for a resync by hand", tp, cause.getMessage());
      } else {
        LOG.debug("Cannot look for stranded replicas on {} now", tp, e);
      }
      return Optional.empty();
    }
  }

  /** The groups with their members and their committed offset on the change log (one batched fetch). */
  private List<Group> groups() throws ExecutionException, InterruptedException, TimeoutException {
    long timeout = ChangeLogPartition.TIMEOUT_MS;
    try (Admin admin = Admin.create(log.clientProps())) {
      List<String> ids = admin.listConsumerGroups().all().get(timeout, TimeUnit.MILLISECONDS).stream()
          .map(ConsumerGroupListing::groupId).toList();
      if (ids.isEmpty()) {
        return List.of();
      }
      Map<String, ConsumerGroupDescription> described = admin.describeConsumerGroups(ids).all()
          .get(timeout, TimeUnit.MILLISECONDS);
      List<String> withMembers = ids.stream().filter(id -> described.containsKey(id)
          && !described.get(id).members().isEmpty()).toList();
      if (withMembers.isEmpty()) {
        return List.of();
      }
      Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
      withMembers.forEach(id -> specs.put(id, new ListConsumerGroupOffsetsSpec().topicPartitions(List.of(tp))));
      Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets = admin.listConsumerGroupOffsets(specs).all()
          .get(timeout, TimeUnit.MILLISECONDS);
      List<Group> out = new ArrayList<>();
      for (String id : withMembers) {
        out.add(new Group(id, true, offsets.getOrDefault(id, Map.of()).get(tp)));
      }
      return out;
    }
  }
}
