package io.pg2lite.source.watch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pg2lite.connect.kafka.hanging.HangingTransaction;
import io.pg2lite.connect.kafka.hanging.HangingTransactionWatch;
import io.pg2lite.connect.kafka.hanging.Runbook;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The REST resource's answer: the hanging transactions reported and still open, as a JSON list. */
final class HangingTransactionsJson {
  /** The JAX-RS application property that holds the worker's {@link HangingTransactionWatch}. */
  static final String WATCH_PROPERTY = HangingTransactionWatch.class.getName();
  private static final ObjectMapper JSON = new ObjectMapper();

  private HangingTransactionsJson() {}

  /** @param property the {@link #WATCH_PROPERTY} (null when the watch did not start: nothing to list) */
  static String of(Object property) {
    if (!(property instanceof HangingTransactionWatch watch)) {
      return "[]";
    }
    long now = System.currentTimeMillis();
    List<Map<String, Object>> out = new ArrayList<>();
    for (HangingTransaction h : watch.reported()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("topic", h.partition().topic());
      m.put("partition", h.partition().partition());
      m.put("producerId", h.producerId());
      m.put("producerEpoch", h.producerEpoch());
      m.put("coordinatorEpoch", h.coordinatorEpoch());
      m.put("startOffset", h.startOffset());
      m.put("idleMs", Math.max(0, now - h.lastWriteMs()));
      m.put("coordinator", h.coordinator());
      m.put("runbook", Runbook.SECTION);
      m.put("abortCommand", Runbook.abortCommand(watch.settings().bootstrapServers(), h));
      out.add(m);
    }
    try {
      return JSON.writeValueAsString(out);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the hanging transactions as JSON", e); // maps of plain values
    }
  }
}
