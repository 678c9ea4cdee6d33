package io.pg2lite.source.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.source.Pg2liteSourceConnector;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class TransactionTimeoutsTest {
  @Test
  void noOverrideOrALongEnoughOneIsFine() {
    assertEquals(Optional.empty(), TransactionTimeouts.problem(Map.of()));
    assertEquals(Optional.empty(), TransactionTimeouts.problem(Map.of(TransactionTimeouts.TRANSACTION_TIMEOUT, "60000")));
    assertEquals(Optional.empty(), TransactionTimeouts.problem(Map.of(TransactionTimeouts.TRANSACTION_TIMEOUT, "40000")));
    assertEquals(Optional.empty(), TransactionTimeouts.problem(Map.of(TransactionTimeouts.TRANSACTION_TIMEOUT, "15000",
        TransactionTimeouts.REQUEST_TIMEOUT, "5000")));
  }

  @Test
  void aTransactionTimeoutWithinTheRequestTimeoutPlusTheMarginIsRefusedNamingBoth() {
    String p = TransactionTimeouts.problem(Map.of(TransactionTimeouts.TRANSACTION_TIMEOUT, "15000")).orElseThrow();
    assertTrue(p.startsWith("producer.override.transaction.timeout.ms is 15000 ms, but must be at least 40000 ms"), p);
    assertTrue(p.contains("request.timeout.ms (30000 ms, Kafka's default)"), p);
    assertTrue(p.contains("lower producer.override.request.timeout.ms"), p);
    String q = TransactionTimeouts.problem(Map.of(TransactionTimeouts.TRANSACTION_TIMEOUT, "30000",
        TransactionTimeouts.REQUEST_TIMEOUT, "25000")).orElseThrow();
    assertTrue(q.contains("at least 35000 ms") && q.contains("(25000 ms)"), q);
  }

  @Test
  void aLongRequestTimeoutAloneIsCheckedAgainstKafkasDefaultTransactionTimeout() {
    assertEquals(Optional.empty(), TransactionTimeouts.problem(Map.of(TransactionTimeouts.REQUEST_TIMEOUT, "10000")));
    String p = TransactionTimeouts.problem(Map.of(TransactionTimeouts.REQUEST_TIMEOUT, "55000")).orElseThrow();
    assertTrue(p.startsWith("producer.override.transaction.timeout.ms is 60000 ms (Kafka's default), but must be at"
        + " least 65000 ms"), p);
  }

  @Test
  void notANumberIsLeftToKafkasOwnCheck() {
    assertEquals(Optional.empty(), TransactionTimeouts.problem(Map.of(TransactionTimeouts.TRANSACTION_TIMEOUT, "soon")));
  }

  @Test
  void theConnectorRefusesItAtValidateAndAtStart() {
    Map<String, String> props = Map.of(TransactionTimeouts.TRANSACTION_TIMEOUT, "15000");
    List<ConfigValue> values = new Pg2liteSourceConnector().validate(props).configValues();
    ConfigValue v = values.stream().filter(c -> c.name().equals(TransactionTimeouts.TRANSACTION_TIMEOUT))
        .findFirst().orElseThrow();
    assertTrue(v.errorMessages().get(0).contains("must be at least 40000 ms"), v.toString());
    ConfigException e = assertThrows(ConfigException.class, () -> new Pg2liteSourceConnector().start(props));
    assertTrue(e.getMessage().contains("transaction.timeout.ms"), e.getMessage());
  }
}
