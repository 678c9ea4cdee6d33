package io.pg2lite.snapshot.s3;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.connect.config.ReplicaConfig;
import io.pg2lite.replica.snapshot.DirectorySnapshotStore;
import io.pg2lite.replica.snapshot.SnapshotStore;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store the shared settings name, and the start-up rule for a bucket that cannot be used. */
class SnapshotStoresIT {
  private static S3Server server;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() throws Exception {
    server = S3Server.start();
    server.createBucket("stores-bucket");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static ReplicaConfig config(Map<String, String> settings) {
    Map<String, String> p = new HashMap<>(settings);
    p.put("replica.path", "/tmp/r.db");
    ConfigDef def = ReplicaConfig.define(new ConfigDef(), new ReplicaConfig.Wording("replica", "dir", 0L, 0L));
    return new ReplicaConfig(new AbstractConfig(def, p, false));
  }

  private static Map<String, String> bucket(String name, String endpoint) {
    return Map.of("snapshot.s3.bucket", name, "snapshot.s3.endpoint", endpoint, "snapshot.s3.path.style", "true",
        "snapshot.s3.access.key.id", S3Server.ACCESS_KEY_ID, "snapshot.s3.secret.access.key",
        S3Server.SECRET_ACCESS_KEY);
  }

  @Test
  void aDirectoryABucketOrNone() throws Exception {
    assertTrue(SnapshotStores.open(config(Map.of()), true).isEmpty());
    assertInstanceOf(DirectorySnapshotStore.class, SnapshotStores.open(config(Map.of("snapshot.dir",
        dir.toString())), true).orElseThrow());
    Optional<SnapshotStore> s3 = SnapshotStores.open(config(bucket("stores-bucket", server.endpoint().toString())),
        true);
    assertTrue(s3.orElseThrow().describe().contains("stores-bucket"), s3.get().describe());
    ((S3SnapshotStore) s3.get()).close();
    Map<String, String> both = new HashMap<>(bucket("stores-bucket", server.endpoint().toString()));
    both.put("snapshot.dir", dir.toString());
    ConfigException e = assertThrows(ConfigException.class, () -> config(both));
    assertTrue(e.getMessage().contains("snapshot.dir") && e.getMessage().contains("snapshot.s3.bucket"),
        e.getMessage());
  }

  @Test
  void aMissingBucketOrRefusedCredentialsFailNamingTheSetting() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SnapshotStores.open(config(bucket("no-such-bucket", server.endpoint().toString())), false));
    assertTrue(e.getMessage().startsWith("snapshot.s3.bucket") && e.getMessage().contains("no-such-bucket"),
        e.getMessage());
    Map<String, String> wrongKey = new HashMap<>(bucket("stores-bucket", server.endpoint().toString()));
    wrongKey.put("snapshot.s3.secret.access.key", "wrong");
    e = assertThrows(IllegalArgumentException.class, () -> SnapshotStores.open(config(wrongKey), false));
    assertTrue(e.getMessage().contains("snapshot.s3.access.key.id"), e.getMessage());
  }

  @Test
  void anUnreachableEndpointFailsOnlyWhenTheStoreIsNeededNow() throws Exception {
    ReplicaConfig unreachable = config(bucket("stores-bucket", "http://127.0.0.1:1"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SnapshotStores.open(unreachable, true));
    assertTrue(e.getMessage().startsWith("snapshot.s3.endpoint"), e.getMessage());
    SnapshotStore store = SnapshotStores.open(unreachable, false).orElseThrow();
    ((S3SnapshotStore) store).close();
  }
}
