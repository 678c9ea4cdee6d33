package io.pg2lite.replica.lineage;

import static io.pg2lite.replica.lineage.LineageLog.V1;
import static io.pg2lite.replica.lineage.LineageLog.V2;
import static io.pg2lite.replica.lineage.LineageLog.V3;
import static io.pg2lite.replica.lineage.ReplicaFiles.batch;
import static io.pg2lite.replica.lineage.ReplicaFiles.ids;
import static io.pg2lite.replica.lineage.ReplicaFiles.range;
import static io.pg2lite.replica.lineage.ReplicaFiles.tables;
import static io.pg2lite.replica.lineage.ReplicaFiles.version;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.replica.apply.ApplyException;
import io.pg2lite.replica.file.ReplicaState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica meeting a new lineage, with real SQLite files: the build beside the replica, the swap
 * once every table is copied, a restart in the middle, a build given up or started over, a topic
 * created again, and a new lineage whose begin is gone.
 */
class ReplicaLineagesTest {
  private static final String REASON = "replication slot pg2lite was invalidated by Postgres (wal_removed)";
  @TempDir Path dir;
  private Path path;
  private final List<Long> seeks = new ArrayList<>();
  private final List<String> events = new ArrayList<>();
  private final LineageEvents listener = new LineageEvents() {
    @Override public void building(String v) { events.add("building " + v); }
    @Override public void abandoned(String v) { events.add("abandoned " + v); }
    @Override public void swapped(String retired, String published) { events.add("swapped " + retired + " " + published); }
  };
  private ReplicaLineages lineages;

  private ReplicaLineages open() throws Exception {
    path = dir.resolve("replica.db");
    lineages = ReplicaFiles.open(path, seeks, listener);
    return lineages;
  }

  @AfterEach
  void close() throws Exception {
    if (lineages != null) {
      lineages.close();
    }
  }

  /** Lineage V1 with tables a (rows 1-3, then 4 live) and b (rows 1-2), applied. */
  private LineageLog first(ReplicaLineages l) {
    LineageLog log = new LineageLog().firstStart(V1, "a", "b").copy("a", 1, 3, true).copy("b", 1, 2, true)
        .insert("a", 4);
    batch(l, log.records());
    return log;
  }

  private Path buildFile(String version) {
    return dir.resolve("replica.db.lineage-" + version);
  }

  @Test
  void aNewLineageIsBuiltBesideTheReplicaAndSwappedInOnceEveryTableIsCopied() throws Exception {
    ReplicaLineages l = open();
    LineageLog log = first(l);
    assertEquals(V1, l.replicaVersion());
    assertEquals("", l.buildingVersion());

    int done = log.size();
    log.openInsert("a", 5).rollback(V2).newLineage(V2, REASON, "a", "b").copy("a", 1, 10, false);
    batch(l, log.from(done));
    assertTrue(Files.exists(buildFile(V2)), "built beside the replica");
    assertEquals(V1, version(path), "readers still see the old lineage");
    assertEquals(range(1, 4), ids(path, "a"), "frozen at its last commit; the cut transaction is not in it");
    assertEquals(List.of("a", "b"), tables(path));
    assertEquals(V2, l.buildingVersion());
    assertEquals(V1, l.replicaVersion());
    assertEquals(V2, l.position().replicaVersion(), "the sink resumes from the build once it has committed");
    assertEquals(List.of("building " + V2), events);

    done = log.size();
    log.copy("a", 11, 10, true);
    batch(l, log.from(done));
    assertEquals(V1, version(path), "b is not copied yet: the new lineage is not whole");
    assertEquals(range(1, 4), ids(path, "a"));

    done = log.size();
    log.copy("b", 1, 5, true);
    batch(l, log.from(done));
    assertEquals(Path.of("replica.db.lineage-" + V2), Files.readSymbolicLink(path), "the path links to the build");
    assertEquals(V2, version(path));
    assertEquals(range(1, 20), ids(path, "a"));
    assertEquals(range(1, 5), ids(path, "b"));
    assertEquals(List.of(List.of("a_v")), ReplicaFiles.query(path, "SELECT name FROM sqlite_master WHERE type = "
        + "'index' AND tbl_name = 'a' AND name = 'a_v'"), "the indexes came with it");
    assertFalse(Files.exists(dir.resolve("replica.db-wal")), "the old file's WAL is deleted");
    assertFalse(Files.exists(dir.resolve("replica.db-shm")));
    assertEquals(V2, l.replicaVersion());
    assertEquals("", l.buildingVersion());
    assertNotNull(l.lastSwap());
    assertEquals(List.of("building " + V2, "swapped " + V1 + " " + V2), events);

    done = log.size();
    log.insert("a", 21);
    batch(l, log.from(done));
    assertEquals(range(1, 21), ids(path, "a"), "live transactions go to the swapped-in replica");

    ReplicaState before = l.position();
    batch(l, log.records()); // all of it delivered again
    assertEquals(before, l.position(), "nothing is taken twice");
    assertEquals(range(1, 21), ids(path, "a"));
    assertEquals(List.of(), seeks, "records delivered again send nobody back");
  }

  @Test
  void aReplicaInRollbackJournalModeIsSwappedAlike() throws Exception {
    path = dir.resolve("replica.db");
    lineages = ReplicaFiles.open(path, new io.pg2lite.replica.ReplicaSettings("DELETE", "FULL", 5000, 0, 1000),
        seeks, listener);
    LineageLog log = first(lineages);
    int done = log.size();
    log.newLineage(V2, REASON, "a").copy("a", 1, 6, true);
    batch(lineages, log.from(done));
    assertEquals(V2, version(path));
    assertEquals(range(1, 6), ids(path, "a"));
    assertEquals(List.of(List.of("delete")), ReplicaFiles.query(path, "PRAGMA journal_mode"));
  }

  @Test
  void anEmptyPublicationIsCompleteRightAfterItsFirstStartTransaction() throws Exception {
    ReplicaLineages l = open();
    LineageLog log = first(l);
    int done = log.size();
    log.newLineage(V2, REASON);
    batch(l, log.from(done));
    assertEquals(V2, version(path));
    assertEquals(List.of(), tables(path), "the new lineage publishes nothing");
    assertTrue(Files.isSymbolicLink(path));
  }

  @Test
  void aRestartInTheMiddleOfABuildGoesOnWithIt() throws Exception {
    ReplicaLineages l = open();
    LineageLog log = first(l);
    int done = log.size();
    log.newLineage(V2, REASON, "a", "b").copy("a", 1, 10, true);
    batch(l, log.from(done));
    ReplicaState building = l.position();
    l.close();
    events.clear();

    ReplicaLineages again = open();
    assertEquals(V2, again.buildingVersion(), "the build is found again");
    assertEquals(V1, again.replicaVersion());
    assertEquals(building, again.position(), "and the sink resumes from its last commit");
    assertEquals(List.of("building " + V2), events, "snapshots are held again");
    assertEquals(V1, version(path));

    log.copy("b", 1, 3, true).insert("b", 4);
    batch(again, log.from(0)); // everything delivered from the start: what the build holds is passed over
    assertEquals(V2, version(path));
    assertEquals(range(1, 10), ids(path, "a"));
    assertEquals(range(1, 4), ids(path, "b"));
  }

  @Test
  void aBuildThatCommittedNothingIsGivenUpOnARollbackAndStartsAgain() throws Exception {
    ReplicaLineages l = open();
    LineageLog log = first(l);
    ReplicaState published = l.position();
    int done = log.size();
    log.newLineage(V2, REASON, "a").copy("a", 1, 2, true);
    List<ChangeLogRecord> v2 = log.from(done);
    for (ChangeLogRecord r : v2.subList(0, 3)) { // begin, create-table, create-index: nothing committed
      l.accept(r);
    }
    assertTrue(Files.exists(buildFile(V2)));
    l.abort(); // a fault or a rebalance
    assertFalse(Files.exists(buildFile(V2)), "a build that committed nothing is deleted");
    assertEquals(published, l.position(), "the sink resumes from the published replica, before the lineage's begin");
    assertEquals("", l.buildingVersion());
    assertEquals(List.of("building " + V2, "abandoned " + V2), events);

    batch(l, v2);
    assertEquals(V2, version(path));
    assertEquals(range(1, 2), ids(path, "a"));
  }

  @Test
  void aLaterLineageDuringABuildStartsTheBuildOver() throws Exception {
    ReplicaLineages l = open();
    LineageLog log = first(l);
    int done = log.size();
    log.newLineage(V2, REASON, "a", "b").copy("a", 1, 10, true);
    batch(l, log.from(done));
    assertTrue(Files.exists(buildFile(V2)));

    done = log.size();
    log.openInsert("b", 1).rollback(V3).newLineage(V3, "the source's offsets were lost", "c").copy("c", 1, 2, true);
    batch(l, log.from(done));
    assertFalse(Files.exists(buildFile(V2)), "the superseded build is deleted");
    assertEquals(V3, version(path));
    assertEquals(List.of("c"), tables(path));
    assertEquals(range(1, 2), ids(path, "c"));
    assertEquals(List.of("building " + V2, "building " + V3, "swapped " + V1 + " " + V3), events);
  }

  @Test
  void aTopicCreatedAgainIsFollowedFromItsFirstRecord() throws Exception {
    ReplicaLineages l = open();
    LineageLog log = new LineageLog().firstStart(V1, "a").skipOffsets(480).copy("a", 1, 3, true);
    batch(l, log.records());
    assertTrue(l.position().offset() > 480);
    int done = log.size();
    log.recreateTopic().newLineage(V2, REASON, "a").copy("a", 1, 7, true);
    // The consumer's position is past the new topic's end: it resets to the topic's start.
    batch(l, log.from(done));
    assertEquals(V2, version(path), "a lineage begin below the replica's offset is not taken for a delivery again");
    assertEquals(range(1, 7), ids(path, "a"));
    assertEquals(7L, l.position().offset(), "the position is in the new topic");
    assertEquals(List.of(), seeks);
  }

  /** Records of the new lineage arrive past its begin: the reader goes back to the log start for it. */
  @Test
  void recordsOfTheNewLineagePastItsBeginSendTheReaderBackForIt() throws Exception {
    ReplicaLineages l = open();
    LineageLog log = new LineageLog().firstStart(V1, "a").skipOffsets(480).copy("a", 1, 3, true);
    batch(l, log.records());
    int done = log.size();
    log.recreateTopic().newLineage(V2, REASON, "a").skipOffsets(600).copy("a", 1, 7, true).insert("a", 8);
    List<ChangeLogRecord> v2 = log.from(done);
    List<ChangeLogRecord> pastTheReplica = v2.stream().filter(r -> r.offset() > l.position().offset()).toList();
    assertEquals(7, pastTheReplica.size());

    batch(l, pastTheReplica); // the consumer's position is inside the new topic
    assertEquals(List.of(0L), seeks, "sent back to the log start");
    assertEquals(V1, version(path));
    assertEquals("", l.buildingVersion(), "nothing of the batch after the seek was taken");

    batch(l, v2); // what the seek delivers
    assertEquals(V2, version(path));
    assertEquals(range(1, 8), ids(path, "a"));
  }

  @Test
  void aNewLineageWhoseBeginIsGoneStopsSayingWhatToDo() throws Exception {
    ReplicaLineages l = open();
    LineageLog log = new LineageLog().firstStart(V1, "a").skipOffsets(480).copy("a", 1, 3, true);
    batch(l, log.records());
    int done = log.size();
    log.recreateTopic().newLineage(V2, REASON, "a").skipOffsets(600).copy("a", 1, 7, true);
    List<ChangeLogRecord> v2 = log.from(done);
    batch(l, v2.subList(5, v2.size()));
    assertEquals(List.of(0L), seeks);
    List<ChangeLogRecord> afterRetention = v2.subList(3, v2.size()); // the first-start transaction is gone
    ApplyException gone = assertThrows(ApplyException.class, () -> batch(l, afterRetention));
    assertTrue(gone.getMessage().contains("replica version " + V2 + " replaces this replica's " + V1), gone.getMessage());
    assertTrue(gone.getMessage().contains("no longer in the topic"), gone.getMessage());
    l.abort();
    assertEquals(V1, version(path), "the replica is untouched");
    assertEquals(range(1, 3), ids(path, "a"));
  }

  @Test
  void anotherLineageThatDeclaresNoPreviousOneStopsAsBefore() throws Exception {
    ReplicaLineages l = open();
    LineageLog log = first(l);
    final int done = log.size();
    log.firstStart(V2, "z").copy("z", 1, 2, true); // a slot recreated by hand, or another source's log
    ApplyException foreign = assertThrows(ApplyException.class, () -> batch(l, log.from(done)));
    assertEquals(List.of(), seeks, "a first-start transaction that declares no lineage needs no search");
    assertTrue(foreign.getMessage().contains("the record belongs to replica version " + V2 + " but this replica was "
        + "built from replica version " + V1), foreign.getMessage());
    assertTrue(foreign.getMessage().contains("resync the replica"), foreign.getMessage());
    assertTrue(foreign.getMessage().contains(LineageLog.TOPIC + "-0@" + done), "names its first-start transaction: "
        + foreign.getMessage());
  }

  /**
   * A new replica on a log whose beginning was deleted (no snapshot): stranded on the log's
   * lineage, it passes it over and asks for a new one; the new lineage's begin builds it.
   */
  @Test
  void anEmptyReplicaStrandedOnATruncatedLogStartsWithTheNextLineage() throws Exception {
    ReplicaLineages l = open();
    LineageLog log = new LineageLog().firstStart(V1, "a").copy("a", 1, 3, true).insert("a", 4).insert("a", 5);
    l.strand("the topic starts at offset 9: the records before were deleted", V1);
    assertEquals(new io.pg2lite.connect.kafka.StrandedReplica(V1, 0), l.strandedMark().orElseThrow());
    assertTrue(l.strandedSince() > 0);
    List<ChangeLogRecord> all = log.records();
    batch(l, all.subList(all.size() - 3, all.size())); // what the topic still holds of V1
    assertTrue(l.position().isEmpty(), "the rest of V1 is passed over");
    int done = log.size();
    log.newLineage(V2, REASON, "a").copy("a", 1, 6, true);
    batch(l, log.from(done));
    assertEquals(V2, version(path));
    assertEquals(range(1, 6), ids(path, "a"));
    assertTrue(l.strandedMark().isEmpty());
    assertEquals(-1, l.strandedSince());
    assertEquals(List.of(), seeks, "the begin came in order: no search");
  }

  /** A build of {@code version} left by a stopped task: {@code records} from its lineage's begin on, committed. */
  private void build(String version, List<ChangeLogRecord> records) throws Exception {
    ChangeLogRecord begin = records.get(0);
    try (LineageBuild b = LineageBuild.start(ReplicaFiles.SETTINGS, new io.pg2lite.protocol.codec.ChangeLogCodec(),
        version, buildFile(version), io.pg2lite.protocol.watermark.Watermark.parse(version).nextMinor(),
        begin.offset(), begin.seq())) {
      for (ChangeLogRecord r : records) {
        b.feed().take(r);
      }
      b.feed().flush();
    }
  }

  @Test
  void leftoversOfAStoppedTaskAreSortedOutAtStart() throws Exception {
    ReplicaLineages l = open();
    LineageLog log = first(l);
    int done = log.size();
    log.newLineage(V2, REASON, "a").copy("a", 1, 2, true);
    batch(l, log.from(done));
    l.close();
    lineages = null;
    // What a crash can leave: the old lineage's file a swap had not deleted yet, a build that committed
    // nothing, a swap's link, the WAL name of the regular file the first swap replaced.
    build(V1, new LineageLog().firstStart(V1, "a").records());
    ReplicaFiles.SETTINGS.open(buildFile(V3)).close();
    Files.createSymbolicLink(dir.resolve(".replica.db.swap"), Path.of("replica.db.lineage-" + V3));
    Files.writeString(dir.resolve("replica.db-wal"), "");

    events.clear();
    ReplicaLineages again = open();
    assertEquals("", again.buildingVersion());
    assertEquals(List.of(), events);
    try (var files = Files.list(dir)) {
      assertEquals(List.of("replica.db", "replica.db.lineage-" + V2, "replica.db.lineage-" + V2 + "-shm",
          "replica.db.lineage-" + V2 + "-wal"), files.map(f -> f.getFileName().toString()).sorted().toList());
    }
    assertEquals(V2, version(path));
  }

  @Test
  void ofTwoBuildsAtStartTheNewerGoesOn() throws Exception {
    ReplicaLineages l = open();
    first(l);
    l.close();
    lineages = null;
    LineageLog later = new LineageLog().firstStart(V1, "a");
    int v2 = later.size();
    later.newLineage(V2, REASON, "a").copy("a", 1, 1, false);
    build(V2, later.from(v2));
    int v3 = later.size();
    later.newLineage(V3, REASON, "a");
    build(V3, later.from(v3));
    ReplicaLineages again = open();
    assertEquals(V3, again.buildingVersion());
    assertEquals(V3, again.position().replicaVersion());
    assertFalse(Files.exists(buildFile(V2)), "superseded by the newer build");
    assertEquals(V1, version(path));
  }
}
