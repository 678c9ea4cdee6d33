package io.pg2lite.sink;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.SinkTaskContext;

/** What a sink task asked of Connect, standing in for the worker in task tests: seeks and timeouts. */
public final class FakeSinkContext implements SinkTaskContext {
  public final Map<TopicPartition, Long> offsets = new HashMap<>();
  public long timeout = -1;
  private final TopicPartition assigned;

  /** @param assigned the one partition Connect assigned */
  public FakeSinkContext(TopicPartition assigned) {
    this.assigned = assigned;
  }

  @Override public Map<String, String> configs() { return Map.of(); }
  @Override public void offset(Map<TopicPartition, Long> o) { offsets.putAll(o); }
  @Override public void offset(TopicPartition tp, long o) { offsets.put(tp, o); }
  @Override public void timeout(long ms) { timeout = ms; }
  @Override public Set<TopicPartition> assignment() { return Set.of(assigned); }
  @Override public void pause(TopicPartition... p) {}
  @Override public void resume(TopicPartition... p) {}
  @Override public void requestCommit() {}
  @Override public PluginMetrics pluginMetrics() { return null; }
}
