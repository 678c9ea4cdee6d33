package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.connect.kafka.hanging.HangingTransaction;
import io.pg2lite.connect.kafka.hanging.HangingTransactionRule;
import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.connect.StallReport;
import io.pg2lite.testkit.connect.StatusWatch;
import io.pg2lite.testkit.connect.WorkerHandle;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.QueryRows;
import io.pg2lite.testkit.workload.Ledger;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;

/**
 * A pipeline for fault tests: the {@link Ledger}'s table in a database of the given Postgres, a
 * source and a sink on the given worker and broker, a {@link Ledger.Background} writer that keeps
 * writing through Postgres restarts, a {@link StatusWatch} that remembers any FAILED state,
 * and {@link #assertConverged} that counts what was lost and what was applied twice.
 *
 * <p>The servers belong to the test (a test stops only servers of its own); this fixture owns the
 * database, the connectors and the replica file and removes them on close.
 */
final class FaultPipeline implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(90);
  static final Duration CONVERGE = Duration.ofSeconds(120);
  private static final Duration LOOK_FOR_HANGING = Duration.ofSeconds(10);
  /** Idle for longer than the source's producer transaction timeout (15 s, {@link #start}). */
  private static final Duration HANGING_IDLE = Duration.ofSeconds(20);
  static final String ROWS = Ledger.PG_ROWS;

  final PostgresServer postgres;
  final String bootstrap;
  final WorkerHandle worker;
  final TestDatabase db;
  final String name;
  final String topic;
  final String source;
  final String sink;
  final SqliteFiles files;
  final Path replica;
  private final List<String> connectors = new ArrayList<>();
  /**
   * Where the writer and the audit connect, and source settings over the defaults: a failover
   * test gives a URL listing primary and standby ({@code targetServerType=primary}) and the same
   * host list to the source. Null and empty: the database on {@link #postgres}.
   */
  String pgUrl;
  final Map<String, String> sourceSettings = new HashMap<>();
  /** Sink settings over the defaults. */
  final Map<String, String> sinkSettings = new HashMap<>();

  FaultPipeline(PostgresServer postgres, String bootstrap, WorkerHandle worker, String name, String topic)
      throws Exception {
    this.postgres = postgres;
    this.bootstrap = bootstrap;
    this.worker = worker;
    this.name = name;
    this.topic = topic;
    this.db = postgres.newDatabase(name);
    this.source = name + "-source";
    this.sink = name + "-sink";
    this.files = new SqliteFiles();
    this.replica = files.newFile("replica");
    db.execute(Ledger.CREATE,
        "CREATE PUBLICATION " + name + "_pub FOR TABLE acct");
  }

  /** Starts the source and the sink and waits until both run. */
  void start() {
    Map<String, String> s = ConnectorConfigs.source(postgres, bootstrap, source, db.name(), name, topic);
    s.put("heartbeat.interval.ms", "1000");
    // A Kafka transaction left open by a broker outage blocks every read_committed read of the
    // offsets topic (Connect starts the connector's and the task's offset stores that way) until
    // Kafka aborts it after the producer's transaction.timeout.ms: 60 s by default, which with
    // the restart around it overran the 90-s wait on a slow machine. Operators shorten it the
    // same way (docs/source-connector.md, "Failures").
    s.put("producer.override.transaction.timeout.ms", "15000");
    // ... and the request timeout within it (TransactionTimeouts): a request to a hung broker must
    // time out and be retried elsewhere before the transaction does.
    s.put("producer.override.request.timeout.ms", "5000");
    s.putAll(sourceSettings);
    worker.rest().putConnector(source, s);
    connectors.add(source);
    worker.rest().awaitRunning(source, WAIT);
    Map<String, String> k = ConnectorConfigs.sink(bootstrap, sink, topic, replica);
    k.putAll(sinkSettings);
    worker.rest().putConnector(sink, k);
    connectors.add(sink);
    worker.rest().awaitRunning(sink, WAIT);
  }

  /** Rows of {@code acct} in the replica (0 while its table does not exist yet). */
  long replicaRows() {
    try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM acct")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      return 0;
    }
  }

  /** The largest id of acct in the replica (0 while it holds none). */
  long replicaMaxId() {
    try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT coalesce(max(id), 0) FROM acct")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      return 0;
    }
  }

  /**
   * A fault's time to heal: waits until the replica holds id {@code id} or a later one (a
   * transaction the writer committed after the fault: {@link Ledger.Background#nextId} read when
   * the fault began) and returns the time from {@code faultNanos} ({@link System#nanoTime} at the
   * fault) until then, as seen by sampling every 50 ms.
   */
  Duration awaitHealed(long id, long faultNanos, Duration timeout) {
    Await.until("id " + id + " (written after the fault) in the replica", timeout, () -> replicaMaxId() >= id);
    return Duration.ofNanos(System.nanoTime() - faultNanos);
  }

  /** Waits until the replica holds more than {@code rows} rows of acct: the pipeline is moving. */
  void awaitReplicaRowsAbove(long rows, Duration timeout) {
    Await.until("more than " + rows + " rows in the replica", timeout, () -> replicaRows() > rows);
  }

  /**
   * Like {@link #awaitReplicaRowsAbove}, after a broker restart: until the replica holds more
   * than {@code rows} rows, looks every 10 s for hanging Kafka transactions on the change log and on {@code worker}'s
   * offsets topic, and aborts those still there 5 s later, as an operator would with
   * {@code kafka-transactions.sh} (ADR 0018). Such a transaction is Kafka's fault: it blocks
   * Connect's own start-up, before any pg2lite code runs. Returns how many it aborted, each
   * printed; the wait fails with a {@link StallReport}.
   */
  int awaitReplicaRowsAboveAbortingHangingTransactions(Admin admin, long rows, Duration timeout) throws Exception {
    List<String> topics = List.of(topic, worker.groupId() + "-offsets");
    long deadline = System.nanoTime() + timeout.toNanos();
    long nextLook = System.nanoTime() + LOOK_FOR_HANGING.toNanos();
    int aborted = 0;
    while (replicaRows() <= rows) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("Timed out after " + timeout.toMillis() + " ms waiting for more than " + rows
            + " rows in the replica" + StallReport.of(worker, admin, List.of(source, sink), topics)
            + hangingReport(admin, topics));
      }
      if (System.nanoTime() - nextLook > 0) {
        aborted += abortHangingTransactions(admin, topics);
        nextLook = System.nanoTime() + LOOK_FOR_HANGING.toNanos();
      }
      Thread.sleep(50);
    }
    return aborted;
  }

  /**
   * One look: the hanging transactions ({@link HangingTransactionRule}, producers idle for
   * {@link #HANGING_IDLE}), and those a second look 5 s later still finds are aborted; returns how
   * many it aborted. A look that Kafka does not answer (a coordinator still loading after the
   * restart) counts as none: the next look, 10 s later, asks again.
   */
  private int abortHangingTransactions(Admin admin, List<String> topics) throws InterruptedException {
    try {
      List<HangingTransaction> seen = hanging(admin, topics, HANGING_IDLE);
      if (seen.isEmpty()) {
        return 0;
      }
      Thread.sleep(5_000);
      List<HangingTransaction> still = hanging(admin, topics, HANGING_IDLE).stream()
          .filter(h -> seen.stream().anyMatch(h::sameAs)).toList();
      for (HangingTransaction h : still) {
        HangingTransactionRule.abort(admin, h);
      }
      if (!still.isEmpty()) {
        System.out.println(name + ": aborted hanging Kafka transactions (ADR 0018): " + still);
      }
      return still.size();
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      System.out.println(name + ": could not look for hanging Kafka transactions this time: " + e);
      return 0;
    }
  }

  /** The stall report's last line: what the rule finds now, at any idle time. */
  private static String hangingReport(Admin admin, List<String> topics) {
    String found;
    try {
      found = hanging(admin, topics, Duration.ZERO).toString();
    } catch (Exception e) {
      found = "unavailable: " + e;
    }
    return "hanging transactions (open on a partition, not at its coordinator): " + found + "\n";
  }

  private static List<HangingTransaction> hanging(Admin admin, List<String> topics, Duration minIdle)
      throws Exception {
    return HangingTransactionRule.find(admin, HangingTransactionRule.partitions(admin, topics), List.of(), minIdle,
        System.currentTimeMillis());
  }

  /** A {@link Ledger} writer on a thread of its own, through Postgres restarts. */
  Ledger.Background startWriter(long seed) {
    return new Ledger(db, seed, this::connect).writeInBackground(name);
  }

  /** Short connect and socket timeouts: a writer cut by a crash notices within seconds. */
  private Connection connect() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", postgres.user());
    props.setProperty("password", postgres.password());
    props.setProperty("connectTimeout", "5");
    props.setProperty("socketTimeout", "30");
    return DriverManager.getConnection(pgUrl == null ? db.jdbcUrl() : pgUrl, props);
  }

  StatusWatch watch() {
    return new StatusWatch(worker::rest, name, List.of(source, sink)).start();
  }

  /**
   * Waits (up to {@link #CONVERGE}) until the replica equals Postgres, then counts, whatever the
   * wait gave: lost = ids missing in the replica + increments missing; twice = ids that Postgres
   * does not hold + increments applied more than once. Both must be 0, then every row must be
   * equal cell by cell.
   */
  void assertConverged() throws SQLException {
    AssertionError timeout = null;
    try {
      Await.until("replica equal to Postgres", CONVERGE, () -> {
        try {
          return pgRows().equals(liteRows());
        } catch (SQLException e) {
          return false;
        }
      });
    } catch (AssertionError e) {
      timeout = e;
    }
    Map<Long, Long> pg = counts(pgRows());
    Map<Long, Long> lite;
    try {
      lite = counts(liteRows());
    } catch (SQLException e) {
      lite = Map.of(); // no acct table in the replica at all
    }
    Ledger.Audit audit = Ledger.compare(pg, lite);
    long lost = audit.lost();
    long twice = audit.twice();
    Map<Long, Long> liteIds = lite;
    long missingIds = pg.keySet().stream().filter(id -> !liteIds.containsKey(id)).count();
    long extraIds = lite.keySet().stream().filter(id -> !pg.containsKey(id)).count();
    String summary = "Postgres " + pg.size() + " rows, replica " + lite.size() + " rows; ids missing in the replica "
        + missingIds + ", extra ids " + extraIds + (timeout == null ? "" : "; " + timeout.getMessage());
    System.out.printf("%s: %s; lost %d, applied twice %d%n", name, summary, lost, twice);
    assertEquals(0, lost, "rows (and increments) lost: " + summary);
    assertEquals(0, twice, "rows (and increments) applied twice: " + summary);
    assertEquals(pgRows(), liteRows(), "every row of the replica equal to Postgres");
    if (timeout != null) {
      throw timeout;
    }
  }

  private List<List<String>> pgRows() throws SQLException {
    try (Connection c = connect()) {
      return QueryRows.of(c, ROWS);
    }
  }

  private List<List<String>> liteRows() throws SQLException {
    try (Connection c = SqliteFiles.open(replica)) {
      return QueryRows.of(c, ROWS);
    }
  }

  private static Map<Long, Long> counts(List<List<String>> rows) {
    Map<Long, Long> out = new HashMap<>(rows.size() * 2);
    for (List<String> r : rows) {
      out.put(Long.parseLong(r.get(0)), Long.parseLong(r.get(1)));
    }
    return out;
  }

  @Override
  public void close() throws Exception {
    for (String c : connectors) {
      try {
        if (worker.rest().connectors().contains(c)) {
          worker.rest().delete(c);
        }
      } catch (RuntimeException e) {
        System.out.println(name + ": could not delete connector " + c + ": " + e);
      }
    }
    try {
      Await.until("connectors of " + name + " gone", WAIT,
          () -> worker.rest().connectors().stream().noneMatch(connectors::contains));
    } finally {
      if (postgres.isRunning()) {
        db.close();
      }
      files.close();
    }
  }
}
