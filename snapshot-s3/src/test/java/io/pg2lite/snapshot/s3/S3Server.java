package io.pg2lite.snapshot.s3;

import java.net.URI;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * A real S3 API server for tests: S3Proxy on an in-memory jclouds blob store, in the test JVM, on
 * a free port of 127.0.0.1, with SigV4 (and V2) authentication against one fixed key pair.
 *
 * <p>Why here and not in test-kit: S3Proxy 2.6.0 shades its Jetty 11, but its pom still declares
 * the unshaded Jetty 11 jars and the Servlet 5 API, and it brings about 130 jars (jclouds, the
 * Azure SDK, Netty, AWS SDK v1, logback; about 44 MB). In test-kit they would land on the test
 * classpath of every module, beside Kafka Connect's Jetty 12 and Servlet 6 API (same artifact ids
 * for the Jetty jars, so Maven keeps one version; two copies of {@code jakarta.servlet}). A test
 * that needs both Connect and S3 should run S3Proxy as a child process instead.
 *
 * <p>Bucket names must be valid S3 names (3 to 63 characters): the blob store accepts "b", but
 * S3Proxy then answers every request on it with NoSuchBucket.
 */
public final class S3Server implements AutoCloseable {
  public static final String ACCESS_KEY_ID = "pg2lite-test-key";
  public static final String SECRET_ACCESS_KEY = "pg2lite-test-secret";
  private final BlobStoreContext blobs;
  private final S3Proxy proxy;

  private S3Server(BlobStoreContext blobs, S3Proxy proxy) {
    this.blobs = blobs;
    this.proxy = proxy;
  }

  /** Starts a server; {@link S3Proxy#start()} returns once Jetty listens, so no waiting is needed. */
  public static S3Server start() throws Exception {
    BlobStoreContext blobs = ContextBuilder.newBuilder("transient").credentials("unused", "unused")
        .build(BlobStoreContext.class);
    S3Proxy proxy = S3Proxy.builder().blobStore(blobs.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY_ID, SECRET_ACCESS_KEY).build();
    try {
      proxy.start();
    } catch (Exception e) {
      blobs.close();
      throw e;
    }
    if (!"STARTED".equals(proxy.getState())) {
      stopQuietly(proxy);
      blobs.close();
      throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
    }
    return new S3Server(blobs, proxy);
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + proxy.getPort());
  }

  public void createBucket(String name) {
    if (!name.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
      throw new IllegalArgumentException("not a valid S3 bucket name: " + name);
    }
    if (!blobs.getBlobStore().createContainerInLocation(null, name)) {
      throw new IllegalStateException("bucket " + name + " exists already");
    }
  }

  /** Settings of a store in {@code bucket} of this server, with this server's credentials. */
  public S3StoreSettings.Builder settings(String bucket) {
    return S3StoreSettings.builder(bucket).endpoint(endpoint()).pathStyle(true)
        .credentials(ACCESS_KEY_ID, SECRET_ACCESS_KEY);
  }

  @Override
  public void close() {
    stopQuietly(proxy);
    blobs.close();
  }

  private static void stopQuietly(S3Proxy proxy) {
    try {
      proxy.stop();
    } catch (Exception e) {
      // a server that would not stop cleanly is gone with the test JVM
    }
  }
}
