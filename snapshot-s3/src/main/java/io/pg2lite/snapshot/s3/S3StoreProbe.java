package io.pg2lite.snapshot.s3;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Set;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The start-up probe: one listing of the prefix, the cheapest request that proves the endpoint
 * answers, the bucket exists and the credentials may read it. A listing, not a HEAD of the
 * bucket, because a HEAD's error has no body: it cannot tell refused credentials from a missing
 * permission, and the store needs the listing permission anyway.
 */
final class S3StoreProbe {
  private static final String CREDENTIALS = S3StoreSettings.ACCESS_KEY_ID_CONFIG + " / "
      + S3StoreSettings.SECRET_ACCESS_KEY_CONFIG;
  /** Error codes of S3 (and the stores that imitate it) for a key or signature it does not accept. */
  private static final Set<String> REFUSED = Set.of("InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken",
      "ExpiredToken", "InvalidSecurity", "TokenRefreshRequired");
  /** Codes that mean the bucket lives in another region than the one the request was signed for. */
  private static final Set<String> WRONG_REGION = Set.of("PermanentRedirect", "AuthorizationHeaderMalformed",
      "IllegalLocationConstraintException");

  private S3StoreProbe() {}

  static void check(S3Client s3, S3StoreSettings settings) throws S3StoreCheckException {
    String where = settings.location();
    try {
      s3.listObjectsV2(r -> r.bucket(settings.bucket()).prefix(settings.prefix()).maxKeys(1));
    } catch (NoSuchBucketException e) {
      throw new S3StoreCheckException(S3StoreSettings.BUCKET_CONFIG, "bucket '" + settings.bucket()
          + "' does not exist at " + where, false, e);
    } catch (S3Exception e) {
      throw refused(settings, e);
    } catch (SdkClientException e) {
      throw unreachable(settings, e);
    }
  }

  private static S3StoreCheckException refused(S3StoreSettings settings, S3Exception e) {
    String where = settings.location();
    String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    String whose = settings.hasStaticCredentials() ? "access key '" + settings.accessKeyId() + "'"
        : "the credentials of the AWS default chain";
    if ("NoSuchBucket".equals(code) || (code == null && e.statusCode() == 404)) {
      return new S3StoreCheckException(S3StoreSettings.BUCKET_CONFIG, "bucket '" + settings.bucket()
          + "' does not exist at " + where, false, e);
    }
    if (REFUSED.contains(code) || e.statusCode() == 401) {
      return new S3StoreCheckException(CREDENTIALS, "credentials refused by " + where + " (" + code + ", " + whose
          + ")", false, e);
    }
    if ("AccessDenied".equals(code) || e.statusCode() == 403) {
      return new S3StoreCheckException(CREDENTIALS, whose + " may not list s3://" + settings.bucket() + "/"
          + settings.prefix() + " at " + where + " (" + code + "); the store needs to list, get, put and delete "
          + "objects and to list and abort multipart uploads there", false, e);
    }
    if (WRONG_REGION.contains(code) || e.statusCode() == 301) {
      return new S3StoreCheckException(S3StoreSettings.REGION_CONFIG, "bucket '" + settings.bucket()
          + "' is not in region " + settings.region() + " (" + code + "): " + e.getMessage(), false, e);
    }
    return new S3StoreCheckException(S3StoreSettings.BUCKET_CONFIG, "listing s3://" + settings.bucket() + "/"
        + settings.prefix() + " at " + where + " failed: " + e.getMessage(), e.statusCode() >= 500, e);
  }

  private static S3StoreCheckException unreachable(S3StoreSettings settings, SdkClientException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof NoRouteToHostException
          || t instanceof SocketTimeoutException) {
        String setting = settings.endpoint() != null ? S3StoreSettings.ENDPOINT_CONFIG : S3StoreSettings.REGION_CONFIG;
        return new S3StoreCheckException(setting, "cannot reach " + settings.location() + ": " + t, true, e);
      }
    }
    String message = String.valueOf(e.getMessage());
    if (message.contains("credentials")) {
      return new S3StoreCheckException(CREDENTIALS, "not set, and the AWS default credentials chain found none: "
          + message, false, e);
    }
    return new S3StoreCheckException(S3StoreSettings.ENDPOINT_CONFIG, "talking to " + settings.location()
        + " failed: " + message, true, e);
  }
}
