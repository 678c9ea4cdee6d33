package io.pg2lite.testkit.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.kafka.KafkaBroker;
import io.pg2lite.testkit.kafka.TopicReader;
import io.pg2lite.testkit.support.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A connector registered over REST on the distributed worker reaches RUNNING and writes, exactly once. */
@ExtendWith(TestStackExtension.class)
class ConnectSmokeIT {
  private final KafkaBroker kafka;
  private final ConnectWorker worker;

  ConnectSmokeIT(TestStack stack) {
    this.kafka = stack.kafka();
    this.worker = stack.connect();
  }

  @Test
  void aConnectorRegisteredOverRestRunsWithExactlyOnceAndWrites() throws Exception {
    String topic = kafka.uniqueTopicName("smoke-connect");
    kafka.createTopic(topic, 1);
    assertTrue(worker.rest().connectorPlugins().contains(CountingSourceConnector.class.getName()),
        "found through its ServiceLoader manifest");

    worker.rest().putConnector("counting", Map.of(
        "connector.class", CountingSourceConnector.class.getName(),
        "tasks.max", "1",
        "topic", topic,
        "count", "5",
        "exactly.once.support", "required",
        "value.converter", "org.apache.kafka.connect.storage.StringConverter"));
    ConnectorStatus status = worker.rest().awaitRunning("counting", Duration.ofSeconds(60));
    assertEquals(1, status.tasks().size());

    try (TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
      List<ConsumerRecord<byte[], byte[]>> records = reader.read(5, Duration.ofSeconds(30));
      assertEquals(List.of("record-0", "record-1", "record-2", "record-3", "record-4"),
          records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList());
    }

    worker.rest().pause("counting");
    Await.until("connector paused", Duration.ofSeconds(30), () -> "PAUSED".equals(worker.rest().status("counting").state()));
    worker.rest().delete("counting");
    Await.until("connector deleted", Duration.ofSeconds(30), () -> !worker.rest().connectors().contains("counting"));
  }

  @Test
  void aFailedTaskIsReportedWithItsTraceInsteadOfATimeout() {
    worker.rest().putConnector("failing", Map.of(
        "connector.class", CountingSourceConnector.class.getName(),
        "tasks.max", "1",
        "topic", "unused",
        "fail", "true"));
    ConnectRestClient.FailedConnectorError e = assertThrows(ConnectRestClient.FailedConnectorError.class,
        () -> worker.rest().awaitRunning("failing", Duration.ofSeconds(60)));
    assertTrue(e.getMessage().contains("CountingTask asked to fail"), e.getMessage());
    worker.rest().delete("failing");
  }

  @Test
  void validateReportsErrorsPerField() {
    Map<String, List<String>> errors = worker.rest().validate(CountingSourceConnector.class.getName(),
        Map.of("connector.class", CountingSourceConnector.class.getName(), "count", "many"));
    assertTrue(errors.containsKey("count"), errors.toString());
    assertTrue(errors.containsKey("topic"), "required field missing: " + errors);
    assertFalse(errors.containsKey("fail"));
  }
}
