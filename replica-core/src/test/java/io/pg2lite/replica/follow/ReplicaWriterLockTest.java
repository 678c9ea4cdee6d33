package io.pg2lite.replica.follow;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicaWriterLockTest {
  @TempDir
  Path dir;

  @Test
  void aSecondWriterIsRefusedNamingTheFileAndTheHolder() throws Exception {
    Path replica = dir.resolve("replica.db");
    try (ReplicaWriterLock first = ReplicaWriterLock.acquire(replica, "follower a", Duration.ZERO)) {
      ReplicaWriterLock.InUse e = assertThrows(ReplicaWriterLock.InUse.class,
          () -> ReplicaWriterLock.acquire(replica, "follower b", Duration.ofMillis(300)));
      assertTrue(e.getMessage().contains(replica.toAbsolutePath().toString()), e.getMessage());
      assertTrue(e.getMessage().contains("follower a (pid " + ProcessHandle.current().pid()), e.getMessage());
    }
    try (ReplicaWriterLock again = ReplicaWriterLock.acquire(replica, "follower b", Duration.ZERO)) {
      assertTrue(again.toString().endsWith("replica.db.writer"));
    }
  }

  @Test
  void aWriterStoppingWithinTheWaitLetsTheNextOneIn() throws Exception {
    Path replica = dir.resolve("r.db");
    ReplicaWriterLock first = ReplicaWriterLock.acquire(replica, "task 0", Duration.ZERO);
    Thread stopper = new Thread(() -> {
      try {
        Thread.sleep(400);
      } catch (InterruptedException ignored) {
        Thread.currentThread().interrupt();
      }
      first.close();
    });
    stopper.start();
    try (ReplicaWriterLock next = ReplicaWriterLock.acquire(replica, "task 0 restarted", Duration.ofSeconds(10))) {
      assertTrue(next.toString().contains("r.db.writer"));
    }
    stopper.join();
  }
}
