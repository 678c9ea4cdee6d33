package io.pg2lite.source.lineage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.connect.kafka.StrandedReplica;
import io.pg2lite.source.lineage.StrandedReplicas.Group;
import io.pg2lite.testkit.support.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.junit.jupiter.api.Test;

class StrandedReplicasTest {
  private static final TopicPartition TP = new TopicPartition("log", 0);

  private static Group group(String id, boolean members, String version, long needs) {
    return new Group(id, members, new OffsetAndMetadata(needs, new StrandedReplica(version, needs).metadata()));
  }

  @Test
  void aGroupWithMembersStrandedOnTheCurrentLineageBelowTheLogStartAsksForANewOne() {
    Optional<String> why = StrandedReplicas.decide(TP, "v1", 400, List.of(group("connect-r", true, "v1", 120)));
    assertTrue(why.orElseThrow().contains("consumer group connect-r is stranded"), why.get());
    assertTrue(why.get().contains("needs change-log record offset 120, but log-0 now starts at offset 400"), why.get());
  }

  @Test
  void marksThatMustNotStartALineageAreIgnored() {
    List<Group> groups = List.of(
        group("deleted-sink", false, "v1", 120), // no members: its connector was deleted
        group("older", true, "v0", 120), // stranded on a lineage already replaced
        group("not-gone", true, "v1", 400), // its records are still in the topic
        new Group("healthy", true, new OffsetAndMetadata(500)), // no mark at all
        new Group("other-topic", true, null), // commits nothing on the change log
        new Group("garbled", true, new OffsetAndMetadata(1, "pg2lite stranded replica-version=v1")));
    assertEquals(Optional.empty(), StrandedReplicas.decide(TP, "v1", 400, groups));
    List<Group> withOne = new java.util.ArrayList<>(groups);
    withOne.add(group("connect-s", true, "v1", 0));
    assertTrue(StrandedReplicas.decide(TP, "v1", 400, withOne).orElseThrow().contains("connect-s"));
  }

  /** A finding counts for the lineage it was made for, once. */
  @Test
  void theWatchHandsAFindingOverOnceAndDropsOneAboutAnOlderLineage() throws Exception {
    AtomicInteger looks = new AtomicInteger();
    try (StrandedWatch watch = new StrandedWatch(v -> {
      looks.incrementAndGet();
      return Optional.of("stranded on " + v);
    }, 10, "test")) {
      assertNull(watch.take(), "nothing is looked for before a lineage is followed");
      watch.following("v1");
      Await.until("a finding", Duration.ofSeconds(10), () -> looks.get() > 0);
      Await.until("handed over", Duration.ofSeconds(10), () -> "stranded on v1".equals(watch.take()));
      watch.following("v2"); // the new lineage began
      String next = null;
      for (int i = 0; i < 500 && next == null; i++) {
        next = watch.take();
        Thread.sleep(5);
      }
      assertEquals("stranded on v2", next, "findings about v1 are dropped; v2's are looked for");
    }
  }

  /**
   * A group the source may not Describe (listed because it may Describe the cluster), or one
   * deleted since the list, is left out of the look; the others are still read.
   */
  @Test
  void aGroupThatDoesNotAnswerIsLeftOutWithoutHidingTheOthers() throws Exception {
    KafkaFutureImpl<String> forbidden = new KafkaFutureImpl<>();
    forbidden.completeExceptionally(new GroupAuthorizationException("Not authorized to access group: other-app"));
    KafkaFutureImpl<String> gone = new KafkaFutureImpl<>();
    gone.completeExceptionally(new GroupIdNotFoundException("Group connect-old not found"));
    Map<String, KafkaFuture<String>> perGroup = Map.of("connect-r", KafkaFuture.completedFuture("answer"),
        "other-app", forbidden, "connect-old", gone);
    Set<String> denied = new TreeSet<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    assertEquals(Map.of("connect-r", "answer"), StrandedReplicas.answered(perGroup, deadline, denied));
    assertEquals(Set.of("other-app"), denied, "only the authorization failure is one to name");
  }

  /** A group that does not answer in time makes the whole look unknown (looked at again later). */
  @Test
  void aGroupThatDoesNotAnswerInTimeMakesTheLookUnknown() {
    Map<String, KafkaFuture<String>> perGroup = Map.of("connect-r", new KafkaFutureImpl<>());
    assertThrows(TimeoutException.class, () -> StrandedReplicas.answered(perGroup, System.nanoTime(),
        new TreeSet<>()));
  }
}
