package io.pg2lite.connect.kafka.hanging;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The watch of a read_committed reader of the change log (the sink): a hanging transaction on the
 * log pins its last stable offset, and the reader, given nothing more, stalls there. The reader
 * says when it is given records ({@link #delivered}); the watch looks only while it is not
 * ({@link ReaderStall}), and otherwise as {@link HangingTransactionWatch} does.
 */
public final class StalledReaderWatch implements AutoCloseable {
  private final ReaderStall stall;
  private final HangingTransactionWatch watch;

  private StalledReaderWatch(ReaderStall stall, HangingTransactionWatch watch) {
    this.stall = stall;
    this.watch = watch;
  }

  /**
   * Starts watching {@code topic}.
   *
   * @param clientProps the reader's own Admin settings (security), without the bootstrap servers
   *     of {@code settings}
   */
  public static StalledReaderWatch start(HangingTransactionWatch.Settings settings, Map<String, Object> clientProps,
      String topic) {
    ReaderStall stall = new ReaderStall(HangingTransactionWatch.INTERVAL);
    Map<String, Object> client = new HashMap<>(clientProps);
    client.put("bootstrap.servers", settings.bootstrapServers());
    AdminTransactionLooks.Watched watched = new AdminTransactionLooks.Watched(Set.of(topic), Set.of());
    return new StalledReaderWatch(stall,
        new HangingTransactionWatch(AdminTransactionLooks.create(settings.clientId(), client, () -> watched, stall),
            settings).start());
  }

  /** The reader was given records (its thread calls this). */
  public void delivered() {
    stall.delivered();
  }

  /** The watch, for the reader's metrics. */
  public HangingTransactionWatch watch() {
    return watch;
  }

  @Override
  public void close() {
    watch.close();
  }
}
