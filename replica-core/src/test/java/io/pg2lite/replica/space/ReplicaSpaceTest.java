package io.pg2lite.replica.space;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The figures and words of a full replica. */
class ReplicaSpaceTest {
  private static final long MIB = 1 << 20;
  @TempDir Path dir;

  @Test
  void measuresTheFileItsWalAndTheRoomOfItsFilesystemAndEstimatesTheNeed() throws Exception {
    Path replica = dir.resolve("r.db");
    Files.write(replica, new byte[3 * 4096]);
    Files.write(dir.resolve("r.db-wal"), new byte[5 * 4096]);
    ReplicaSpace.Shortage s = new ReplicaSpace(replica, "replica.max.size.bytes", 0, true).measure(3 * MIB);
    assertEquals(3 * 4096, s.fileBytes());
    assertEquals(5 * 4096, s.walBytes());
    assertEquals(Files.getFileStore(dir).getUsableSpace(), s.usableBytes(), 64 * MIB);
    assertEquals(6 * MIB + ReplicaSpace.WAL_HEADROOM_BYTES, s.neededBytes(), "twice the records, plus the WAL's");
    ReplicaSpace.Shortage journal = new ReplicaSpace(replica, "replica.max.size.bytes", 0, false).measure(3 * MIB);
    assertEquals(0, journal.walBytes(), "no WAL outside WAL mode");
    assertEquals(6 * MIB, journal.neededBytes());
  }

  @Test
  void aFullDiskNamesTheFileTheRoomTheEstimateAndWhatToDo() {
    ReplicaSpace space = new ReplicaSpace(Path.of("/data/replicas/r.db"), "replica.max.size.bytes", 0, true);
    ReplicaSpace.Shortage s = new ReplicaSpace.Shortage(MIB / 2, 30 * MIB, 4 * MIB, 2 * MIB, 8 * MIB);
    assertFalse(space.limitReached(s));
    assertEquals("The replica /data/replicas/r.db is full: its filesystem has 0.5 MiB free; the replica takes 30.0 MiB"
        + " (its WAL 4.0 MiB); the transaction being applied needs about 8.0 MiB more (an estimate: twice the 2.0 MiB"
        + " of change-log records since the last commit, plus 3.9 MiB for the WAL between checkpoints). Free space on"
        + " that filesystem; nothing else is needed: the sink retries from its last commit (nothing is lost), with no"
        + " time limit, and goes on by itself once there is room.", space.describe(s));
    assertEquals("0.5 MiB free on its filesystem, about 8.0 MiB needed", space.describeBriefly(s));
  }

  @Test
  void aReachedLimitNamesTheSettingAndADiskWithoutRoomStillComesFirst() {
    ReplicaSpace capped = new ReplicaSpace(Path.of("/data/r.db"), "replica.max.size.bytes", 262144, true);
    ReplicaSpace.Shortage roomy = new ReplicaSpace.Shortage(900 * MIB, MIB / 4, MIB / 8, MIB / 16, 5 * MIB);
    assertTrue(capped.limitReached(roomy), "the disk has room: the limit refused the write");
    String limit = capped.describe(roomy);
    assertTrue(limit.startsWith("The replica /data/r.db reached its size limit, replica.max.size.bytes = 262144 "
        + "(0.3 MiB): the replica takes 0.3 MiB (its WAL 0.1 MiB); its filesystem has 900.0 MiB free. Raise "
        + "replica.max.size.bytes, or set it to 0 for no limit"), limit);
    assertEquals("its size limit replica.max.size.bytes = 262144 is reached", capped.describeBriefly(roomy));
    ReplicaSpace.Shortage tight = new ReplicaSpace.Shortage(MIB, MIB / 4, MIB / 8, MIB / 16, 5 * MIB);
    assertFalse(capped.limitReached(tight));
    assertTrue(capped.describe(tight).contains("is full: its filesystem has 1.0 MiB free")
        && capped.describe(tight).contains("replica.max.size.bytes = 262144 is set as well"), capped.describe(tight));
  }
}
