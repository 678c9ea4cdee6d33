package io.pg2lite.testkit.connect;

/**
 * A running Connect cluster as a fault test drives it: a worker in the test JVM
 * ({@link ConnectWorker}), a worker process ({@link WorkerProcess}), or a group of worker
 * processes of which some may have been killed ({@link WorkerGroup}).
 */
public interface WorkerHandle {
  /** A REST client on a live worker of the cluster. */
  ConnectRestClient rest();

  /** The Connect group id; also the prefix of its config, offset and status topics. */
  String groupId();

  /**
   * Connect's and pg2lite's threads with their top frames (where a start-up or a task waits), for
   * a {@link StallReport}.
   */
  String threads();
}
