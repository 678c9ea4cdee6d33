package io.pg2lite.snapshot.s3;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Records the requests a real client sends, as "Operation key" (the request class without its
 * {@code Request} suffix): for tests of the order of PUTs and DELETEs, which no listing shows.
 */
final class S3RequestLog implements ExecutionInterceptor {
  private final List<String> requests = new CopyOnWriteArrayList<>();

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    SdkRequest r = context.request();
    String operation = r.getClass().getSimpleName().replaceFirst("Request$", "");
    requests.add(r.getValueForField("Key", String.class).map(k -> operation + " " + k).orElse(operation));
  }

  List<String> all() {
    return List.copyOf(requests);
  }

  /** The requests of one operation, e.g. "PutObject". */
  List<String> of(String operation) {
    return requests.stream().filter(r -> r.equals(operation) || r.startsWith(operation + " ")).toList();
  }

  void clear() {
    requests.clear();
  }
}
