package io.pg2lite.connect.kafka.hanging;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;

/**
 * Looks through one long-lived Admin client of its own (a look every 10 s would otherwise open a
 * client, its connections and its thread each time): the partitions of the topics watched now,
 * past the {@link LookGate}, by {@link HangingTransactionRule}.
 */
public final class AdminTransactionLooks implements TransactionLooks {
  /**
   * What to watch: the topics, and the transactional ids known to write to them, which the
   * principal must be allowed to describe (see {@link HangingTransactionRule}).
   */
  public record Watched(Set<String> topics, Set<String> transactionalIds) {
    public Watched {
      topics = Set.copyOf(topics);
      transactionalIds = Set.copyOf(transactionalIds);
    }
  }

  private final Admin admin;
  private final Supplier<Watched> watched;
  private final LookGate gate;
  private final Duration minIdle;
  private volatile String described = "";

  AdminTransactionLooks(Admin admin, Supplier<Watched> watched, LookGate gate, Duration minIdle) {
    this.admin = admin;
    this.watched = watched;
    this.gate = gate;
    this.minIdle = minIdle;
  }

  /**
   * @param clientId the Admin client's id ({@link HangingTransactionWatch.Settings#clientId})
   * @param clientProps the Admin client's settings (bootstrap servers and security)
   * @param watched read before each look: what to watch now
   */
  public static AdminTransactionLooks create(String clientId, Map<String, Object> clientProps,
      Supplier<Watched> watched, LookGate gate) {
    Map<String, Object> p = new HashMap<>(clientProps);
    p.put("client.id", clientId);
    p.putIfAbsent("default.api.timeout.ms", "15000");
    p.putIfAbsent("request.timeout.ms", "10000");
    return new AdminTransactionLooks(Admin.create(p), watched, gate, HangingTransactionWatch.MIN_IDLE);
  }

  @Override
  public Optional<List<HangingTransaction>> look() throws Exception {
    if (!gate.due()) {
      return Optional.empty();
    }
    Watched w = watched.get();
    described = String.join(", ", new TreeSet<>(w.topics()));
    List<TopicPartition> partitions = HangingTransactionRule.partitions(admin, w.topics());
    if (partitions.isEmpty()) {
      return Optional.of(List.of());
    }
    return switch (gate.decide(admin, partitions)) {
      case NOTHING_PINNED -> Optional.of(List.of());
      case LOOK -> Optional.of(HangingTransactionRule.find(admin, partitions, w.transactionalIds(), minIdle,
          System.currentTimeMillis()));
    };
  }

  @Override
  public void abort(HangingTransaction h) throws Exception {
    HangingTransactionRule.abort(admin, h);
  }

  @Override
  public String watched() {
    return described;
  }

  /** Closes the client at once: a call in flight is abandoned (the watch is stopping). */
  @Override
  public void close() {
    admin.close(Duration.ZERO);
  }
}
