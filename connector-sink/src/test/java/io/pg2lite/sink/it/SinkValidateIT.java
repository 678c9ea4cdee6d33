package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.sink.Pg2liteSinkConnector;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The sink's validate(): per-field errors for a bad replica path and a multi-partition topic. */
@ExtendWith(TestStackExtension.class)
class SinkValidateIT {
  @Test
  void reportsBadPathsAndTopicsPerField(TestStack stack) throws Exception {
    String good = stack.kafka().uniqueTopicName("sink-validate");
    stack.kafka().createTopic(good, 1);
    String three = stack.kafka().uniqueTopicName("sink-validate-three");
    stack.kafka().createTopic(three, 3);
    Map<String, String> c = new HashMap<>();
    c.put("name", "validate-sink");
    c.put("connector.class", Pg2liteSinkConnector.class.getName());
    c.put("topics", good);
    c.put("replica.path", System.getProperty("java.io.tmpdir") + "/validate-replica.db");
    c.put("kafka.bootstrap.servers", stack.kafka().bootstrapServers());
    assertEquals(Map.of(), stack.connect().rest().validate(Pg2liteSinkConnector.class.getName(), c));

    c.put("topics", three);
    c.put("replica.path", "/no/such/dir/replica.db");
    Map<String, List<String>> errors = stack.connect().rest().validate(Pg2liteSinkConnector.class.getName(), c);
    assertTrue(errors.get("replica.path").get(0).contains("does not exist"), errors.toString());
    assertTrue(errors.get("kafka.bootstrap.servers").get(0).contains("3 partitions"), errors.toString());
  }
}
