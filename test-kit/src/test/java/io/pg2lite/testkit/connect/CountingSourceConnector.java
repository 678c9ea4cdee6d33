package io.pg2lite.testkit.connect;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * A tiny source connector for the Connect smoke test: writes {@code count} numbered records to
 * {@code topic}, then idles. With {@code fail=true} its task fails on start, to exercise the
 * REST client's failure reporting.
 */
public class CountingSourceConnector extends SourceConnector {
  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return CountingTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef()
        .define("topic", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "topic to write to")
        .define("count", ConfigDef.Type.INT, 3, ConfigDef.Importance.LOW, "records to write")
        .define("fail", ConfigDef.Type.BOOLEAN, false, ConfigDef.Importance.LOW, "fail the task on start");
  }

  @Override
  public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
    return ExactlyOnceSupport.SUPPORTED;
  }

  @Override
  public String version() {
    return "test";
  }

  /** The task: emits the records once, in one poll. */
  public static class CountingTask extends SourceTask {
    private String topic;
    private int remaining;

    @Override
    public void start(Map<String, String> props) {
      if (Boolean.parseBoolean(props.get("fail"))) {
        throw new IllegalStateException("CountingTask asked to fail");
      }
      topic = props.get("topic");
      remaining = Integer.parseInt(props.getOrDefault("count", "3"));
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
      if (remaining == 0) {
        Thread.sleep(100); // idle like a real source task with nothing to do
        return null;
      }
      List<SourceRecord> out = new ArrayList<>();
      for (int i = 0; remaining > 0; i++, remaining--) {
        out.add(new SourceRecord(Map.of("source", "counting"), Map.of("n", i), topic, 0, null, null,
            Schema.STRING_SCHEMA, "record-" + i));
      }
      return out;
    }

    @Override
    public void stop() {}

    @Override
    public String version() {
      return "test";
    }
  }
}
