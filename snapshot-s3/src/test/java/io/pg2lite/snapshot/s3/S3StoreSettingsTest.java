package io.pg2lite.snapshot.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import org.junit.jupiter.api.Test;

/** Settings are checked once, with messages naming the setting a user writes. */
class S3StoreSettingsTest {
  private static String refused(S3StoreSettings.Builder b) {
    return assertThrows(IllegalArgumentException.class, b::build).getMessage();
  }

  @Test
  void defaultsFollowTheEndpoint() {
    S3StoreSettings aws = S3StoreSettings.builder("b").build();
    assertNull(aws.region(), "AWS itself: the SDK's region chain decides");
    assertEquals("", aws.prefix());
    assertEquals(16L << 20, aws.partSizeBytes());
    assertFalse(aws.hasStaticCredentials());
    S3StoreSettings local = S3StoreSettings.builder("b").endpoint(URI.create("http://127.0.0.1:9000")).build();
    assertEquals("us-east-1", local.region());
    assertEquals("http://127.0.0.1:9000", local.location());
    assertEquals("eu-west-3", S3StoreSettings.builder("b").endpoint(URI.create("https://s3.example"))
        .region("eu-west-3").build().region());
  }

  @Test
  void thePrefixIsAFolder() {
    assertEquals("replicas/", S3StoreSettings.builder("b").prefix("replicas").build().prefix());
    assertEquals("a/b/", S3StoreSettings.builder("b").prefix("a/b/").build().prefix());
    assertTrue(refused(S3StoreSettings.builder("b").prefix("/abs")).startsWith("snapshot.s3.prefix: "));
  }

  @Test
  void badValuesNameTheirSetting() {
    assertEquals("snapshot.s3.bucket: required", refused(S3StoreSettings.builder(" ")));
    assertTrue(refused(S3StoreSettings.builder("b").credentials("id", null))
        .startsWith("snapshot.s3.access.key.id / snapshot.s3.secret.access.key: set both or neither"));
    assertTrue(refused(S3StoreSettings.builder("b").partSizeBytes((5L << 20) - 1))
        .startsWith("snapshot.s3.part.size.bytes: 5242879 is outside"));
    assertTrue(refused(S3StoreSettings.builder("b").partSizeBytes((5L << 30) + 1))
        .startsWith("snapshot.s3.part.size.bytes: "));
    assertTrue(refused(S3StoreSettings.builder("b").endpoint(URI.create("ftp://host")))
        .startsWith("snapshot.s3.endpoint: 'ftp://host'"));
  }

  @Test
  void theSecretIsNeverPrinted() {
    S3StoreSettings s = S3StoreSettings.builder("b").credentials("AKID", "very-secret").build();
    assertTrue(s.toString().contains("AKID"), s.toString());
    assertFalse(s.toString().contains("very-secret"), s.toString());
  }
}
