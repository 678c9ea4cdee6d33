package io.pg2lite.snapshot.s3;

import java.time.Duration;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * Builds the one synchronous {@link S3Client} a store uses, from its settings.
 *
 * <p>The HTTP client is the JDK's {@code HttpURLConnection} ({@code url-connection-client}): the
 * store makes one request at a time, so a pooled Apache or Netty client would only add jars to the
 * plugin archive.
 *
 * <p>Checksums: since 2.30 the SDK sends every upload as an {@code aws-chunked} body with a CRC32
 * trailer and checks the CRC of every download by default ({@code WHEN_SUPPORTED}). S3Proxy 2.6.0
 * refuses such uploads with 400 "The provided 'x-amz-content-sha256' header does not match what
 * was computed" (seen in this module's tests, every PUT and part). The store does not need them: a
 * snapshot's integrity is proved end to end by the SHA-256 in its manifest, which {@code fetch}
 * checks on every byte it writes. So checksums are computed and validated only where S3 requires
 * them ({@code WHEN_REQUIRED}), as SDKs before 2.30 did; a PUT over plain http is then signed with
 * its payload's SHA-256, over https it relies on TLS.
 */
final class S3Clients {
  /** Long enough for a slow store, short enough that a wrong endpoint fails a start-up probe quickly. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  /** A read that stalls this long is a dead connection, not a slow one. */
  static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(60);

  private S3Clients() {}

  /**
   * A client for {@code settings}; {@code interceptors} are for tests that inject faults into a
   * real exchange. Fails naming {@value S3StoreSettings#REGION_CONFIG} when no region is set and
   * the SDK's region chain finds none.
   */
  static S3Client create(S3StoreSettings settings, List<ExecutionInterceptor> interceptors) {
    S3ClientBuilder b = S3Client.builder()
        .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(CONNECT_TIMEOUT)
            .socketTimeout(SOCKET_TIMEOUT))
        .credentialsProvider(credentials(settings))
        .forcePathStyle(settings.pathStyle())
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(o -> interceptors.forEach(o::addExecutionInterceptor));
    if (settings.endpoint() != null) {
      b.endpointOverride(settings.endpoint());
    }
    if (settings.region() != null) {
      b.region(Region.of(settings.region()));
    }
    try {
      return b.build();
    } catch (SdkClientException e) {
      throw new IllegalArgumentException(S3StoreSettings.REGION_CONFIG + ": not set and the AWS SDK found no "
          + "region (AWS_REGION, profile): " + e.getMessage(), e);
    }
  }

  private static AwsCredentialsProvider credentials(S3StoreSettings settings) {
    if (settings.hasStaticCredentials()) {
      return StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKeyId(),
          settings.secretAccessKey()));
    }
    return DefaultCredentialsProvider.builder().build();
  }
}
