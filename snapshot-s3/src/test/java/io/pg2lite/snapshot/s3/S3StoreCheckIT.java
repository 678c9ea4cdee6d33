package io.pg2lite.snapshot.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.URI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The start-up probe against a real S3 API: each way of being misconfigured names its setting. */
class S3StoreCheckIT {
  private static S3Server server;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.start();
    server.createBucket("present");
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  private static S3StoreCheckException checkFails(S3StoreSettings settings) {
    try (S3SnapshotStore store = new S3SnapshotStore(settings)) {
      return assertThrows(S3StoreCheckException.class, store::check);
    }
  }

  @Test
  void aWellConfiguredStorePasses() throws Exception {
    try (S3SnapshotStore store = new S3SnapshotStore(server.settings("present").prefix("a/b").build())) {
      store.check();
    }
  }

  @Test
  void aMissingBucketIsNamed() {
    S3StoreCheckException e = checkFails(server.settings("absent").build());
    assertEquals("snapshot.s3.bucket", e.setting());
    assertEquals("snapshot.s3.bucket: bucket 'absent' does not exist at " + server.endpoint(), e.getMessage());
    assertFalse(e.retriable());
  }

  @Test
  void refusedCredentialsAreNamed() {
    S3StoreCheckException wrongSecret = checkFails(server.settings("present")
        .credentials(S3Server.ACCESS_KEY_ID, "not-the-secret").build());
    assertEquals("snapshot.s3.access.key.id / snapshot.s3.secret.access.key", wrongSecret.setting());
    assertTrue(wrongSecret.getMessage().startsWith("snapshot.s3.access.key.id / snapshot.s3.secret.access.key: "
        + "credentials refused by " + server.endpoint()), wrongSecret.getMessage());
    assertFalse(wrongSecret.getMessage().contains("not-the-secret"), "the secret is never printed");
    S3StoreCheckException unknownKey = checkFails(server.settings("present").credentials("nobody", "x").build());
    assertTrue(unknownKey.getMessage().contains("credentials refused by " + server.endpoint())
        && unknownKey.getMessage().contains("access key 'nobody'"), unknownKey.getMessage());
    assertFalse(unknownKey.retriable());
  }

  @Test
  void anUnreachableEndpointIsNamedAndRetriable() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    URI nowhere = URI.create("http://127.0.0.1:" + closedPort);
    long start = System.nanoTime();
    S3StoreCheckException e = checkFails(server.settings("present").endpoint(nowhere).build());
    assertEquals("snapshot.s3.endpoint", e.setting());
    assertTrue(e.getMessage().startsWith("snapshot.s3.endpoint: cannot reach " + nowhere), e.getMessage());
    assertTrue(e.retriable());
    assertTrue(System.nanoTime() - start < 15_000_000_000L, "a refused connection fails fast");
  }
}
