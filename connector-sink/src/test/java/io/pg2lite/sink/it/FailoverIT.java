package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectorStatus;
import io.pg2lite.testkit.connect.StatusWatch;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.StandbyServer;
import io.pg2lite.testkit.workload.Ledger;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 27: a primary failover without a resync (Postgres 17 failover slots, ADR 0036). A primary
 * and its streaming standby ({@link StandbyServer}), two sources whose {@code database.hostname}
 * lists both: one with a failover slot the standby synchronizes, one with
 * {@code slot.failover=false}. While the {@link Ledger} writer runs, the primary is killed
 * ({@code pg_ctl stop -m immediate}) and the standby promoted. The first source reconnects to the
 * promoted standby by itself, resumes from the synchronized slot, and its replica ends equal to
 * the new primary with nothing lost and nothing applied twice, no task ever FAILED. The second
 * fails, saying that its slot is missing on the promoted server and what a failover needs.
 *
 * <p>Nothing lost and nothing twice hold only because the primary's
 * {@code synchronized_standby_slots} names the standby: the primary sends the source no change
 * the standby has not flushed, so the replica never holds a transaction the promotion lost.
 */
@ExtendWith(TestStackExtension.class)
class FailoverIT {
  private static final Duration WAIT = FaultPipeline.WAIT;

  @Test
  void primaryKilledStandbyPromotedTheSourceResumesFromTheSynchronizedSlot(TestStack stack) throws Exception {
    try (PostgresServer primary = PostgresServer.startDedicated();
        StandbyServer standby = StandbyServer.of(primary);
        FaultPipeline p = pipeline(stack, primary, standby, "fo_sync");
        FaultPipeline unsynced = pipeline(stack, primary, standby, "fo_nosync")) {
      unsynced.sourceSettings.put("slot.failover", "false");
      p.start();
      unsynced.start();
      standby.startSyncingSlots();
      String slot = p.name + "_slot";
      standby.awaitSlotSynced(slot, WAIT);
      assertFalse(standby.hasSlot(unsynced.name + "_slot"), "a slot without failover is not synchronized");
      try (StatusWatch watch = p.watch()) {
        Ledger.Background writer = p.startWriter(27);
        long atPromotion;
        try {
          p.awaitReplicaRowsAbove(50, WAIT);
          primary.killImmediate();
          standby.promote();
          atPromotion = writer.commits();
          writer.awaitCommits(100, WAIT); // the writer goes on on the new primary
          p.awaitReplicaRowsAbove(p.replicaRows() + 20, WAIT); // and the source follows it there
        } finally {
          writer.close();
        }
        System.out.printf("fo_sync: writer committed %d (%d at the promotion), failed %d%n", writer.commits(),
            atPromotion, writer.failures());
        p.assertConverged();
        assertNull(watch.failure(), "a task FAILED during the failover");
      }

      ConnectorStatus failed = unsynced.worker.rest().awaitFailed(unsynced.source, WAIT);
      String trace = failed.failure();
      String expected = "replication slot " + unsynced.name + "_slot is missing on localhost:" + standby.port()
          + ", on WAL timeline 2: a standby promoted";
      assertTrue(trace.contains(expected), trace);
      assertTrue(trace.contains("failover slot (PostgreSQL 17+, slot.failover=true)")
          && trace.contains("synchronized_standby_slots") && trace.contains("Resync:"), trace);
    }
  }

  /** A pipeline whose source, writer and audit all connect through the list primary, standby. */
  private static FaultPipeline pipeline(TestStack stack, PostgresServer primary, StandbyServer standby, String name)
      throws Exception {
    FaultPipeline p = new FaultPipeline(primary, stack.kafka().bootstrapServers(), stack.connect(), name,
        stack.kafka().uniqueTopicName(name));
    String hosts = primary.host() + ":" + primary.port() + "," + standby.host() + ":" + standby.port();
    p.sourceSettings.put("database.hostname", hosts);
    p.pgUrl = "jdbc:postgresql://" + hosts + "/" + p.db.name() + "?targetServerType=primary&hostRecheckSeconds=2";
    return p;
  }
}
