package io.pg2lite.snapshot.s3;

import java.net.URI;
import java.util.Locale;

/**
 * Where an {@link S3SnapshotStore} keeps its snapshots and how it signs in, checked once here so
 * that the store and its client never see a half-valid combination. Every message names the
 * setting a user writes ({@code snapshot.s3.*}).
 *
 * @param bucket the bucket (it must exist; the store never creates one)
 * @param prefix where in the bucket, empty or ending in {@code /} (one is added when missing)
 * @param region the signing region; {@code us-east-1} when an endpoint is given without one, and
 *     null (the AWS SDK's region chain) for AWS itself
 * @param endpoint an S3-compatible store's URI, or null for AWS
 * @param pathStyle {@code http://host/bucket/key} instead of {@code http://bucket.host/key}: most
 *     S3-compatible stores need it, since their buckets have no DNS names
 * @param accessKeyId with {@code secretAccessKey}, fixed credentials; both null means the AWS
 *     SDK's default chain (environment, system properties, profile, container or instance role)
 * @param partSizeBytes files larger than this go up as a multipart upload in parts of this size
 */
public record S3StoreSettings(String bucket, String prefix, String region, URI endpoint, boolean pathStyle,
    String accessKeyId, String secretAccessKey, long partSizeBytes) {
  public static final String BUCKET_CONFIG = "snapshot.s3.bucket";
  public static final String PREFIX_CONFIG = "snapshot.s3.prefix";
  public static final String REGION_CONFIG = "snapshot.s3.region";
  public static final String ENDPOINT_CONFIG = "snapshot.s3.endpoint";
  public static final String PATH_STYLE_CONFIG = "snapshot.s3.path.style";
  public static final String ACCESS_KEY_ID_CONFIG = "snapshot.s3.access.key.id";
  public static final String SECRET_ACCESS_KEY_CONFIG = "snapshot.s3.secret.access.key";
  public static final String PART_SIZE_BYTES_CONFIG = "snapshot.s3.part.size.bytes";

  public static final String REGION_WITH_ENDPOINT_DEFAULT = "us-east-1";
  public static final long PART_SIZE_BYTES_DEFAULT = 16L << 20;
  /** S3 refuses a part below 5 MiB unless it is the last one. */
  public static final long PART_SIZE_BYTES_MIN = 5L << 20;
  /** S3's largest part. */
  public static final long PART_SIZE_BYTES_MAX = 5L << 30;

  public S3StoreSettings {
    if (bucket == null || bucket.isBlank()) {
      throw new IllegalArgumentException(BUCKET_CONFIG + ": required");
    }
    prefix = prefix == null ? "" : prefix.strip();
    if (prefix.startsWith("/")) {
      throw new IllegalArgumentException(PREFIX_CONFIG + ": '" + prefix + "' must not start with '/' (keys are "
          + "relative to the bucket)");
    }
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      prefix = prefix + "/";
    }
    if (endpoint != null) {
      String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || endpoint.getHost() == null) {
        throw new IllegalArgumentException(ENDPOINT_CONFIG + ": '" + endpoint + "' is not an http(s) URI with a host");
      }
    }
    region = region == null || region.isBlank() ? (endpoint != null ? REGION_WITH_ENDPOINT_DEFAULT : null)
        : region.strip();
    boolean hasId = accessKeyId != null && !accessKeyId.isEmpty();
    boolean hasSecret = secretAccessKey != null && !secretAccessKey.isEmpty();
    if (hasId != hasSecret) {
      throw new IllegalArgumentException(ACCESS_KEY_ID_CONFIG + " / " + SECRET_ACCESS_KEY_CONFIG
          + ": set both or neither (neither uses the AWS default credentials chain)");
    }
    if (!hasId) {
      accessKeyId = null;
      secretAccessKey = null;
    }
    if (partSizeBytes < PART_SIZE_BYTES_MIN || partSizeBytes > PART_SIZE_BYTES_MAX) {
      throw new IllegalArgumentException(PART_SIZE_BYTES_CONFIG + ": " + partSizeBytes + " is outside S3's part "
          + "sizes, " + PART_SIZE_BYTES_MIN + " (5 MiB) to " + PART_SIZE_BYTES_MAX + " (5 GiB)");
    }
  }

  public static Builder builder(String bucket) {
    return new Builder(bucket);
  }

  /** Whether fixed credentials were given (else the AWS default chain is asked). */
  public boolean hasStaticCredentials() {
    return accessKeyId != null;
  }

  /** Where the store is, for messages: the endpoint, or AWS in its region. */
  public String location() {
    if (endpoint != null) {
      return endpoint.toString();
    }
    return region == null ? "AWS (region from the default chain)" : "AWS region " + region;
  }

  /** Never prints the secret: settings end up in logs and exception messages. */
  @Override
  public String toString() {
    return "S3StoreSettings[bucket=" + bucket + ", prefix=" + prefix + ", region=" + region + ", endpoint=" + endpoint
        + ", pathStyle=" + pathStyle + ", accessKeyId=" + accessKeyId + ", secretAccessKey="
        + (secretAccessKey == null ? "null" : "[hidden]") + ", partSizeBytes=" + partSizeBytes + "]";
  }

  /** Settings with defaults for everything but the bucket. */
  public static final class Builder {
    private final String bucket;
    private String prefix = "";
    private String region;
    private URI endpoint;
    private boolean pathStyle;
    private String accessKeyId;
    private String secretAccessKey;
    private long partSizeBytes = PART_SIZE_BYTES_DEFAULT;

    private Builder(String bucket) {
      this.bucket = bucket;
    }

    public Builder prefix(String value) {
      prefix = value;
      return this;
    }

    public Builder region(String value) {
      region = value;
      return this;
    }

    public Builder endpoint(URI value) {
      endpoint = value;
      return this;
    }

    public Builder pathStyle(boolean value) {
      pathStyle = value;
      return this;
    }

    public Builder credentials(String id, String secret) {
      accessKeyId = id;
      secretAccessKey = secret;
      return this;
    }

    public Builder partSizeBytes(long value) {
      partSizeBytes = value;
      return this;
    }

    public S3StoreSettings build() {
      return new S3StoreSettings(bucket, prefix, region, endpoint, pathStyle, accessKeyId, secretAccessKey,
          partSizeBytes);
    }
  }
}
