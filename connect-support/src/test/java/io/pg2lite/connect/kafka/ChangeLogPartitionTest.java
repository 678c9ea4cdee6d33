package io.pg2lite.connect.kafka;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ChangeLogPartitionTest {
  /**
   * A hung broker (a socket the kernel accepts and nobody answers, as with a SIGSTOPped broker):
   * a reading gives up after {@link ChangeLogPartition#TIMEOUT_MS} and returns at once, without
   * waiting for its client's call to time out too ({@code default.api.timeout.ms}, 15 s).
   */
  @Test
  void aReadingOfAHungBrokerEndsAtItsTimeout() throws Exception {
    try (ServerSocket hung = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      ChangeLogPartition log = new ChangeLogPartition("127.0.0.1:" + hung.getLocalPort(), Map.of());
      long t0 = System.nanoTime();
      OptionalLong start = log.logStart(new TopicPartition("log", 0));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(start.isEmpty(), "nothing read from a broker that does not answer");
      assertTrue(ms < ChangeLogPartition.TIMEOUT_MS + 3_000, "returned after " + ms + " ms");
    }
  }
}
