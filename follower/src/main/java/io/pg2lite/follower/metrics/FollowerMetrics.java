package io.pg2lite.follower.metrics;

import io.pg2lite.connect.MBeans;
import io.pg2lite.connect.metrics.StageTimes;
import io.pg2lite.replica.verify.VerifyFigures;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * The follower's MBean, reading its figures from suppliers (the follower's own accessors, safe
 * from any thread), registered while the follower runs.
 */
public final class FollowerMetrics implements FollowerMetricsMBean, AutoCloseable {
  /** The figures, as the follower answers them. */
  public record Figures(Supplier<String> state, Supplier<String> watermark, LongSupplier offset, LongSupplier lag,
      LongSupplier fullSince, LongSupplier strandedSince, LongSupplier snapshotFailingSince,
      LongSupplier restoredOffset, StageTimes stages, VerifyFigures verify) {}

  private final Figures f;
  private final ObjectName name;

  private FollowerMetrics(Figures f, ObjectName name) {
    this.f = f;
    this.name = name;
  }

  /** Registers the MBean of follower {@code follower}; a follower of the same name before it is replaced. */
  public static FollowerMetrics register(String follower, Figures figures) {
    ObjectName name;
    try {
      name = new ObjectName("io.pg2lite:type=follower,name=" + ObjectName.quote(follower));
    } catch (MalformedObjectNameException e) {
      throw new IllegalArgumentException("follower name " + follower + " makes no MBean name", e);
    }
    FollowerMetrics m = new FollowerMetrics(figures, name);
    return MBeans.register(m, name) ? m : new FollowerMetrics(figures, null);
  }

  @Override
  public String getLatencyStages() {
    return f.stages().describe();
  }

  @Override
  public void resetLatencyStages() {
    f.stages().reset();
  }

  @Override
  public double getCommitLatencyP50Millis() {
    return f.stages().totalMillis(50);
  }

  @Override
  public double getCommitLatencyP99Millis() {
    return f.stages().totalMillis(99);
  }

  @Override
  public String getState() {
    return f.state().get();
  }

  @Override
  public String getWatermark() {
    return f.watermark().get();
  }

  @Override
  public long getOffset() {
    return f.offset().getAsLong();
  }

  @Override
  public long getLag() {
    return f.lag().getAsLong();
  }

  @Override
  public long getReplicaFullSince() {
    return f.fullSince().getAsLong();
  }

  @Override
  public long getStrandedSince() {
    return f.strandedSince().getAsLong();
  }

  @Override
  public long getSnapshotFailingSince() {
    return f.snapshotFailingSince().getAsLong();
  }

  @Override
  public long getRestoredSnapshotOffset() {
    return f.restoredOffset().getAsLong();
  }

  @Override
  public String getVerifiedAt() {
    return f.verify().verifiedAt();
  }

  @Override
  public long getVerifyMismatches() {
    return f.verify().mismatches();
  }

  @Override
  public void close() {
    MBeans.unregister(name);
  }
}
