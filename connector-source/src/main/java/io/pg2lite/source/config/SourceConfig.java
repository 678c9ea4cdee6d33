package io.pg2lite.source.config;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import io.pg2lite.backfill.schedule.BackfillScheduler;
import io.pg2lite.connect.config.KafkaClientSettings;
import io.pg2lite.protocol.parts.RecordValues;
import io.pg2lite.source.kafka.RecordLimit;
import io.pg2lite.connect.config.RetrySettings;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.types.Password;

/**
 * The source connector's configuration, parsed once into typed final fields: nothing else in the
 * source reads raw config strings.
 */
public final class SourceConfig {
  private static final String GROUP_CONNECTION = "Postgres connection";
  private static final String GROUP_REPLICATION = "Replication";
  private static final String GROUP_TOPIC = "Change log";
  private static final String GROUP_BACKFILL = "Backfill";
  private static final String GROUP_FAULTS = "Faults";

  public static final String HOST_CONFIG = "database.hostname";
  private static final String HOST_DOC = "Postgres host name, or a list of hosts the source tries in order "
      + "(primary.example,standby.example:5433; each host, or host:port, an IPv6 address in brackets), for a primary "
      + "failover: with a list, every connection of the source goes only to the one that is a primary "
      + "(pgjdbc's targetServerType=primary), so after a standby is promoted the source reconnects to it by itself "
      + "(docs/operations.md, \"Primary failover\").";
  public static final String PORT_CONFIG = "database.port";
  private static final String PORT_DOC = "Postgres port, of each host in database.hostname that names none.";
  public static final int PORT_DEFAULT = 5432;
  public static final String DATABASE_CONFIG = "database.dbname";
  private static final String DATABASE_DOC = "The database to replicate.";
  public static final String USER_CONFIG = "database.user";
  private static final String USER_DOC = "Postgres user. Needs the REPLICATION attribute (or superuser), CONNECT on the "
      + "database, SELECT on the published tables, and, to install the DDL event triggers, superuser once.";
  public static final String PASSWORD_CONFIG = "database.password";
  private static final String PASSWORD_DOC = "Postgres password. Use a config provider (${env:PG_PASSWORD}) rather "
      + "than a literal.";
  public static final String SSLMODE_CONFIG = "database.sslmode";
  private static final String SSLMODE_DOC = "libpq-style sslmode: disable, allow, prefer, require, verify-ca, "
      + "verify-full. Only verify-ca and verify-full check the server's certificate (against database.sslrootcert); "
      + "verify-full also checks that it names database.hostname.";
  public static final String SSLMODE_DEFAULT = "prefer";
  public static final String SSLROOTCERT_CONFIG = "database.sslrootcert";
  private static final String SSLROOTCERT_DOC = "The CA certificate(s) that signed the server's certificate, checked "
      + "under sslmode verify-ca and verify-full: a file name, or the PEM text itself (from a config provider, e.g. "
      + "${dir:/etc/pg2lite/tls:root.crt}). Unset: pgjdbc's default, ~/.postgresql/root.crt of the worker's user.";
  public static final String SSLCERT_CONFIG = "database.sslcert";
  private static final String SSLCERT_DOC = "Client certificate, for certificate authentication (pg_hba.conf "
      + "method cert: its CN is the user name): a file name or the PEM text itself. Needs database.sslkey.";
  public static final String SSLKEY_CONFIG = "database.sslkey";
  private static final String SSLKEY_DOC = "Private key of database.sslcert: a file name or the PEM text itself. "
      + "PEM (PKCS#8 PRIVATE KEY or ENCRYPTED PRIVATE KEY, PKCS#1 RSA PRIVATE KEY), PKCS#8 DER, or PKCS#12 "
      + "(a .p12 or .pfx file). A password field, so key text never shows in logs or validate() answers.";
  public static final String SSLPASSWORD_CONFIG = "database.sslpassword";
  private static final String SSLPASSWORD_DOC = "Password of an encrypted database.sslkey (or of its PKCS#12 file).";

  public static final String SLOT_CONFIG = "slot.name";
  private static final String SLOT_DOC = "Logical replication slot (pgoutput). Created on first start if missing; "
      + "its consistent point becomes the replica version of the log.";
  public static final String SLOT_DEFAULT = "pg2lite";
  public static final String SLOT_FAILOVER_CONFIG = "slot.failover";
  private static final String SLOT_FAILOVER_DOC = "Postgres 17+: the slot is a failover slot (failover = true), "
      + "which a standby with sync_replication_slots = on keeps a synchronized copy of, so that the source resumes on "
      + "the standby once it is promoted. The source creates the slot so and turns it on for an existing slot. "
      + "Ignored before Postgres 17. Turn off only for a slot no standby should carry.";
  public static final String PUBLICATION_CONFIG = "publication.name";
  private static final String PUBLICATION_DOC = "Publication whose tables are replicated.";
  public static final String PUBLICATION_DEFAULT = "pg2lite";
  public static final String PUBLICATION_TABLES_CONFIG = "publication.tables";
  private static final String PUBLICATION_TABLES_DOC = "If the publication does not exist, create it FOR these "
      + "tables (schema.table, comma separated). Empty: the publication must exist.";
  public static final String RESYNC_CHECK_INTERVAL_CONFIG = "resync.check.interval.ms";
  private static final String RESYNC_CHECK_INTERVAL_DOC = "With resync.auto: how often the source looks for "
      + "replicas stranded by records deleted from the topic (retention, kafka-delete-records): consumer groups with "
      + "members whose committed offset on the change log carries a sink's (or follower's) mark asking for a new "
      + "lineage of the current replica version, at an offset the topic no longer holds. Finding one starts a new "
      + "lineage. The source's kafka.* principal needs Describe on the sinks' groups (e.g. a prefixed ACL on connect-): "
      + "Kafka lists only the groups a principal may Describe.";
  public static final String RESYNC_AUTO_CONFIG = "resync.auto";
  private static final String RESYNC_AUTO_DOC = "What the source does when its change log cannot go on: its slot "
      + "invalidated by Postgres (max_slot_wal_keep_size, idle_replication_slot_timeout, ...) or dropped, the topic "
      + "deleted or recreated, the connector's offsets lost. false (default): the task fails naming the cause, and a "
      + "person resyncs. true: the source starts a new lineage by itself: a new slot, a new replica version, a "
      + "first-start transaction that says which lineage it replaces and why, and a backfill of every published "
      + "table. Sinks build the new replica beside the old one and swap it in once it is whole.";
  public static final String REPLICA_IDENTITY_CONFIG = "replica.identity.policy";
  private static final String REPLICA_IDENTITY_DOC = "What a published table without a primary key needs: "
      + "'unique-index' (default) accepts a unique index over NOT NULL columns and sets REPLICA IDENTITY USING it; "
      + "'primary-key' requires a primary key.";
  public static final String REPLICA_IDENTITY_DEFAULT = "unique-index";
  public static final String HEARTBEAT_INTERVAL_CONFIG = "heartbeat.interval.ms";
  private static final String HEARTBEAT_INTERVAL_DOC = "How often an idle source writes a heartbeat, so the slot "
      + "advances and Postgres can recycle WAL even when no published table changes. 0 disables it.";
  public static final long HEARTBEAT_INTERVAL_DEFAULT = 10_000L;
  public static final String DDL_DETECTION_CONFIG = "ddl.detection";
  private static final String DDL_DETECTION_DOC = "How the source learns of schema changes. 'event-triggers': "
      + "pg2lite's catalog and event triggers report every DDL exactly, inside its transaction; installed at start "
      + "by trying (a superuser or a managed admin role such as rds_superuser may), else the task fails. "
      + "'replication-stream': nothing is installed; pgoutput's Relation messages and the source's catalog checks "
      + "report schema changes (docs/source-connector.md, 'Schema changes without event triggers'). 'auto' "
      + "(default): event triggers where the role may install them, else replication-stream, with a WARN.";
  public static final String DDL_DETECTION_DEFAULT = "auto";
  public static final String SCHEMA_CHECK_INTERVAL_CONFIG = "schema.check.interval.ms";
  private static final String SCHEMA_CHECK_INTERVAL_DOC = "replication-stream mode: how often the source reads "
      + "the publication's schema and, when it changed, writes a catalog check into the WAL. Bounds how late a "
      + "replica shows a schema change no row change follows: a table added to or removed from the publication, "
      + "an index, a change of a table nobody writes to.";
  public static final long SCHEMA_CHECK_INTERVAL_DEFAULT = 5_000L;

  public static final String TOPIC_CONFIG = "topic";
  private static final String TOPIC_DOC = "The change-log topic. Must have exactly one partition.";
  public static final String TOPIC_CREATE_CONFIG = "topic.create";
  private static final String TOPIC_CREATE_DOC = "Create the change-log, heartbeat and schema history topics on "
      + "start if missing "
      + "(one partition, cleanup.policy=delete, unlimited retention).";
  public static final String TOPIC_REPLICATION_FACTOR_CONFIG = "topic.replication.factor";
  private static final String TOPIC_REPLICATION_FACTOR_DOC = "Replication factor of topics the source creates; "
      + "-1 takes the broker default.";
  public static final String HEARTBEAT_TOPIC_CONFIG = "heartbeat.topic";
  private static final String HEARTBEAT_TOPIC_DOC = "Topic for heartbeat records, which carry the source position "
      + "when no change does. Default: '<topic>.heartbeat'.";
  public static final String SCHEMA_HISTORY_TOPIC_CONFIG = "schema.history.topic";
  private static final String SCHEMA_HISTORY_TOPIC_DOC = "Topic where the source records the published schema as "
      + "of each commit that changed it, so a restart resumes with the schema of its position (one partition, "
      + "unlimited retention: never shorten it). Default: '<topic>.schemas'.";
  public static final String COMMIT_INTERVAL_CONFIG = "exactly.once.commit.interval.ms";
  private static final String COMMIT_INTERVAL_DOC = "Exactly-once mode: while the source is catching up, complete "
      + "upstream transactions are grouped into one Kafka transaction for up to this long (a Kafka commit is "
      + "synchronous and costly). Once caught up, each poll commits at once. A Kafka transaction never ends "
      + "inside an upstream transaction unless it reaches exactly.once.split.records or exactly.once.split.bytes.";
  public static final long COMMIT_INTERVAL_DEFAULT = 250L;
  public static final String SPLIT_RECORDS_CONFIG = "exactly.once.split.records";
  private static final String SPLIT_RECORDS_DOC = "Exactly-once mode: a Kafka transaction that holds this many "
      + "records commits even inside an upstream transaction. Connect keeps every record of an open Kafka "
      + "transaction in memory (about 1.5 KB each), so this bounds the worker's heap whatever the size of an "
      + "upstream transaction. Consumers see such a transaction's prefix before its commit; they act only on "
      + "commit (docs/protocol.md).";
  public static final long SPLIT_RECORDS_DEFAULT = 20_000L;
  public static final String SPLIT_BYTES_CONFIG = "exactly.once.split.bytes";
  private static final String SPLIT_BYTES_DOC = "Exactly-once mode: a Kafka transaction whose record values reach "
      + "this many bytes commits even inside an upstream transaction (the bound of "
      + SPLIT_RECORDS_CONFIG + " for wide rows).";
  public static final long SPLIT_BYTES_DEFAULT = 16L * 1024 * 1024;
  public static final String RETRY_TIMEOUT_CONFIG = RetrySettings.TIMEOUT_CONFIG;
  public static final long RETRY_TIMEOUT_DEFAULT = RetrySettings.TIMEOUT_DEFAULT;
  public static final String RETRY_BACKOFF_MAX_CONFIG = RetrySettings.BACKOFF_MAX_CONFIG;
  public static final long RETRY_BACKOFF_MAX_DEFAULT = RetrySettings.BACKOFF_MAX_DEFAULT;
  public static final String KAFKA_BOOTSTRAP_CONFIG = KafkaClientSettings.BOOTSTRAP_CONFIG;
  private static final String KAFKA_BOOTSTRAP_DOC = "Bootstrap servers of the Kafka cluster holding the change log, "
      + "for the source's own admin and consumer clients (create and check the topic, read its tail on start). "
      + "Other client settings (security) go in kafka.* keys, e.g. kafka.security.protocol.";
  public static final String BACKFILL_BATCH_ROWS_CONFIG = "backfill.batch.rows";
  private static final String BACKFILL_BATCH_ROWS_DOC = "Most rows per backfill record (one 'backfill' message) "
      + "when copying the existing rows of a newly published table or column. A record also ends once its "
      + "values reach about 256 KB, so wide rows never exceed Kafka's record size limit.";
  public static final int BACKFILL_BATCH_ROWS_DEFAULT = 1000;
  public static final String BACKFILL_TRANSACTION_BATCHES_CONFIG = "backfill.transaction.batches";
  private static final String BACKFILL_TRANSACTION_BATCHES_DOC = "Backfill records per backfill transaction while "
      + "the main stream is idle (no live transaction in the last second). While live transactions flow, "
      + "backfill.live.budget.ms bounds a backfill transaction instead; while the main stream is busy, a backfill "
      + "gets one record per second.";
  public static final int BACKFILL_TRANSACTION_BATCHES_DEFAULT = 20;
  public static final String BACKFILL_MAX_ROWS_PER_SECOND_CONFIG = "backfill.max.rows.per.second";
  private static final String BACKFILL_MAX_ROWS_PER_SECOND_DOC = "Caps the rate of a copy (0: no cap). Replicas "
      + "apply a live change only after every backfill record before it in the log, so a copy written faster "
      + "than the slowest replica applies it delays live changes; keep the cap below that replica's apply rate "
      + "(docs/performance.md).";
  public static final long BACKFILL_MAX_ROWS_PER_SECOND_DEFAULT = 0;
  public static final String VERIFY_INTERVAL_CONFIG = "verify.interval.ms";
  private static final String VERIFY_INTERVAL_DOC = "Verifies every published table this often (0: only when asked "
      + "with SELECT pg2lite.verify()): the source reads each table from a snapshot, paced by "
      + "backfill.max.rows.per.second, and writes its digests into the change log, where every replica compares "
      + "its own (docs/operations.md, \"Verifying replicas\").";
  public static final String BACKFILL_LIVE_BUDGET_CONFIG = "backfill.live.budget.ms";
  private static final String BACKFILL_LIVE_BUDGET_DOC = "While live transactions flow (one was written in the "
      + "last second), a backfill transaction reads rows for at most this long, so a live change waits behind at "
      + "most one such short transaction, at the source and again at each replica. Smaller: live changes wait "
      + "less, the copy is slower (each backfill transaction costs a Kafka commit). While the database is "
      + "otherwise idle a backfill transaction holds backfill.transaction.batches records, with no time bound.";
  public static final String KAFKA_PREFIX = KafkaClientSettings.PREFIX;
  public static final String DEBEZIUM_PREFIX = "debezium.";

  /** The definition, also used to generate docs/config-source.md. */
  public static ConfigDef configDef() {
    ConfigDef def = new ConfigDef()
        .define(HOST_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new PostgresHosts.Validator(), Importance.HIGH,
            HOST_DOC, GROUP_CONNECTION, 1, Width.MEDIUM, "Host")
        .define(PORT_CONFIG, Type.INT, PORT_DEFAULT, ConfigDef.Range.between(1, 65535), Importance.HIGH, PORT_DOC,
            GROUP_CONNECTION, 2, Width.SHORT, "Port")
        .define(DATABASE_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(),
            Importance.HIGH, DATABASE_DOC, GROUP_CONNECTION, 3, Width.MEDIUM, "Database")
        .define(USER_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
            USER_DOC, GROUP_CONNECTION, 4, Width.MEDIUM, "User")
        .define(PASSWORD_CONFIG, Type.PASSWORD, "", Importance.HIGH, PASSWORD_DOC, GROUP_CONNECTION, 5, Width.MEDIUM,
            "Password")
        .define(SSLMODE_CONFIG, Type.STRING, SSLMODE_DEFAULT,
            ConfigDef.ValidString.in("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
            Importance.MEDIUM, SSLMODE_DOC, GROUP_CONNECTION, 6, Width.SHORT, "SSL mode")
        .define(SSLROOTCERT_CONFIG, Type.STRING, "", Importance.MEDIUM, SSLROOTCERT_DOC, GROUP_CONNECTION, 7,
            Width.LONG, "SSL root certificate")
        .define(SSLCERT_CONFIG, Type.STRING, "", Importance.MEDIUM, SSLCERT_DOC, GROUP_CONNECTION, 8, Width.LONG,
            "SSL client certificate")
        .define(SSLKEY_CONFIG, Type.PASSWORD, "", Importance.MEDIUM, SSLKEY_DOC, GROUP_CONNECTION, 9, Width.LONG,
            "SSL client key")
        .define(SSLPASSWORD_CONFIG, Type.PASSWORD, "", Importance.MEDIUM, SSLPASSWORD_DOC, GROUP_CONNECTION, 10,
            Width.MEDIUM, "SSL client key password")
        .define(SLOT_CONFIG, Type.STRING, SLOT_DEFAULT, new SlotNameValidator(), Importance.HIGH, SLOT_DOC,
            GROUP_REPLICATION, 1, Width.MEDIUM, "Slot")
        .define(SLOT_FAILOVER_CONFIG, Type.BOOLEAN, true, Importance.MEDIUM, SLOT_FAILOVER_DOC, GROUP_REPLICATION,
            10, Width.SHORT, "Failover slot")
        .define(PUBLICATION_CONFIG, Type.STRING, PUBLICATION_DEFAULT, new ConfigDef.NonEmptyString(), Importance.HIGH,
            PUBLICATION_DOC, GROUP_REPLICATION, 2, Width.MEDIUM, "Publication")
        .define(PUBLICATION_TABLES_CONFIG, Type.LIST, "", Importance.MEDIUM, PUBLICATION_TABLES_DOC,
            GROUP_REPLICATION, 3, Width.LONG, "Tables of a new publication")
        .define(REPLICA_IDENTITY_CONFIG, Type.STRING, REPLICA_IDENTITY_DEFAULT,
            ConfigDef.ValidString.in("unique-index", "primary-key"), Importance.MEDIUM, REPLICA_IDENTITY_DOC,
            GROUP_REPLICATION, 4, Width.SHORT, "Replica identity policy")
        .define(RESYNC_AUTO_CONFIG, Type.BOOLEAN, false, Importance.MEDIUM, RESYNC_AUTO_DOC, GROUP_REPLICATION, 8,
            Width.SHORT, "Resync by itself")
        .define(RESYNC_CHECK_INTERVAL_CONFIG, Type.LONG, 30_000L, ConfigDef.Range.atLeast(1000), Importance.LOW,
            RESYNC_CHECK_INTERVAL_DOC, GROUP_REPLICATION, 9, Width.SHORT, "Stranded replicas check interval")
        .define(HEARTBEAT_INTERVAL_CONFIG, Type.LONG, HEARTBEAT_INTERVAL_DEFAULT, ConfigDef.Range.atLeast(0),
            Importance.LOW, HEARTBEAT_INTERVAL_DOC, GROUP_REPLICATION, 5, Width.SHORT, "Heartbeat interval")
        .define(DDL_DETECTION_CONFIG, Type.STRING, DDL_DETECTION_DEFAULT,
            ConfigDef.ValidString.in("auto", "event-triggers", "replication-stream"), Importance.MEDIUM,
            DDL_DETECTION_DOC, GROUP_REPLICATION, 6, Width.SHORT, "DDL detection")
        .define(SCHEMA_CHECK_INTERVAL_CONFIG, Type.LONG, SCHEMA_CHECK_INTERVAL_DEFAULT,
            ConfigDef.Range.between(100, 3_600_000), Importance.LOW, SCHEMA_CHECK_INTERVAL_DOC, GROUP_REPLICATION, 7,
            Width.SHORT, "Schema check interval")
        .define(TOPIC_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
            TOPIC_DOC, GROUP_TOPIC, 1, Width.MEDIUM, "Change-log topic")
        .define(KAFKA_BOOTSTRAP_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(),
            Importance.HIGH, KAFKA_BOOTSTRAP_DOC, GROUP_TOPIC, 5, Width.LONG, "Kafka bootstrap servers")
        .define(TOPIC_CREATE_CONFIG, Type.BOOLEAN, true, Importance.MEDIUM, TOPIC_CREATE_DOC, GROUP_TOPIC, 2,
            Width.SHORT, "Create topics")
        .define(TOPIC_REPLICATION_FACTOR_CONFIG, Type.SHORT, (short) -1, Importance.LOW, TOPIC_REPLICATION_FACTOR_DOC,
            GROUP_TOPIC, 3, Width.SHORT, "Topic replication factor")
        .define(COMMIT_INTERVAL_CONFIG, Type.LONG, COMMIT_INTERVAL_DEFAULT, ConfigDef.Range.atLeast(0),
            Importance.LOW, COMMIT_INTERVAL_DOC, GROUP_TOPIC, 6, Width.SHORT, "Exactly-once commit interval")
        .define(SPLIT_RECORDS_CONFIG, Type.LONG, SPLIT_RECORDS_DEFAULT, ConfigDef.Range.atLeast(1),
            Importance.LOW, SPLIT_RECORDS_DOC, GROUP_TOPIC, 7, Width.SHORT, "Exactly-once split records")
        .define(SPLIT_BYTES_CONFIG, Type.LONG, SPLIT_BYTES_DEFAULT, ConfigDef.Range.atLeast(1),
            Importance.LOW, SPLIT_BYTES_DOC, GROUP_TOPIC, 8, Width.SHORT, "Exactly-once split bytes")
        .define(HEARTBEAT_TOPIC_CONFIG, Type.STRING, "", Importance.LOW, HEARTBEAT_TOPIC_DOC, GROUP_TOPIC, 4,
            Width.MEDIUM, "Heartbeat topic")
        .define(SCHEMA_HISTORY_TOPIC_CONFIG, Type.STRING, "", Importance.LOW, SCHEMA_HISTORY_TOPIC_DOC, GROUP_TOPIC, 9,
            Width.MEDIUM, "Schema history topic")
        .define(BACKFILL_BATCH_ROWS_CONFIG, Type.INT, BACKFILL_BATCH_ROWS_DEFAULT, ConfigDef.Range.between(1, 100_000),
            Importance.LOW, BACKFILL_BATCH_ROWS_DOC, GROUP_BACKFILL, 1, Width.SHORT, "Backfill batch rows")
        .define(BACKFILL_TRANSACTION_BATCHES_CONFIG, Type.INT, BACKFILL_TRANSACTION_BATCHES_DEFAULT,
            ConfigDef.Range.between(1, 10_000), Importance.LOW, BACKFILL_TRANSACTION_BATCHES_DOC, GROUP_BACKFILL, 2,
            Width.SHORT, "Backfill transaction batches")
        .define(BACKFILL_MAX_ROWS_PER_SECOND_CONFIG, Type.LONG, BACKFILL_MAX_ROWS_PER_SECOND_DEFAULT,
            ConfigDef.Range.atLeast(0), Importance.LOW, BACKFILL_MAX_ROWS_PER_SECOND_DOC, GROUP_BACKFILL, 3,
            Width.SHORT, "Backfill rate cap")
        .define(BACKFILL_LIVE_BUDGET_CONFIG, Type.LONG, BackfillScheduler.DEFAULT_LIVE_BUDGET_MILLIS,
            ConfigDef.Range.between(1, 60_000), Importance.LOW, BACKFILL_LIVE_BUDGET_DOC, GROUP_BACKFILL, 4,
            Width.SHORT, "Backfill read budget while live")
        .define(VERIFY_INTERVAL_CONFIG, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.LOW, VERIFY_INTERVAL_DOC,
            GROUP_BACKFILL, 5, Width.SHORT, "Verification interval");
    return RetrySettings.define(def, GROUP_FAULTS, "Postgres restarting or unreachable, a dropped replication "
        + "connection, a Kafka request timing out", "");
  }

  /** {@code database.hostname} as given: one host or a list (see {@link #hosts}). */
  public final String host;
  /** The servers of {@code database.hostname}, each with its port, in the order they are tried. */
  public final PostgresHosts hosts;
  public final long retryTimeoutMs;
  public final long retryBackoffMaxMs;
  public final int port;
  public final String database;
  public final String user;
  public final Password password;
  public final String sslMode;
  /** TLS material: a file name or the PEM text itself, "" when unset (io.pg2lite.source.postgres.PostgresTls). */
  public final String sslRootCert;
  public final String sslCert;
  public final Password sslKey;
  public final Password sslPassword;
  public final String slot;
  /** {@code slot.failover}: on Postgres 17+, the slot is (made) a failover slot. */
  public final boolean slotFailover;
  public final String publication;
  public final List<String> publicationTables;
  public final boolean requirePrimaryKey;
  /** {@code resync.auto}: start a new lineage by itself when the old one cannot go on. */
  public final boolean resyncAuto;
  /** How often a source with {@link #resyncAuto} looks for stranded replicas. */
  public final long resyncCheckIntervalMs;
  public final long heartbeatIntervalMs;
  /** Whether the slot is read through Debezium's decoder ({@code decoder}) rather than its whole task. */
  public final String topic;
  public final boolean createTopics;
  public final short topicReplicationFactor;
  public final String heartbeatTopic;
  public final String schemaHistoryTopic;
  /** {@code ddl.detection}: auto, event-triggers or replication-stream. */
  public final String ddlDetection;
  public final long schemaCheckIntervalMs;
  public final String kafkaBootstrapServers;
  public final long commitIntervalMs;
  public final long splitRecords;
  public final long splitBytes;
  /** Settings for the source's own Kafka clients: {@code kafka.*} without the prefix. */
  public final Map<String, Object> kafkaClientProps;
  public final int backfillBatchRows;
  public final int backfillTransactionBatches;
  public final long backfillMaxRowsPerSecond;
  public final long verifyIntervalMs;
  public final long backfillLiveBudgetMs;
  /** {@code debezium.*} settings, without the prefix: expert overrides passed to Debezium. */
  public final Map<String, String> debeziumOverrides;
  /** The connector's name, for Debezium's logical name and MBeans. */
  public final String connectorName;
  /**
   * The producer's {@code max.request.size}: the connector's {@code producer.override} of it, else
   * Kafka's default (a worker-wide setting is invisible to a connector; override it here when the
   * worker lowers it).
   */
  public final int producerMaxRequestSize;

  public SourceConfig(Map<String, String> props) {
    AbstractConfig c = new AbstractConfig(configDef(), props, false);
    host = c.getString(HOST_CONFIG);
    port = c.getInt(PORT_CONFIG);
    hosts = PostgresHosts.parse(host, port);
    database = c.getString(DATABASE_CONFIG);
    user = c.getString(USER_CONFIG);
    password = c.getPassword(PASSWORD_CONFIG);
    sslMode = c.getString(SSLMODE_CONFIG);
    sslRootCert = c.getString(SSLROOTCERT_CONFIG).strip();
    sslCert = c.getString(SSLCERT_CONFIG).strip();
    sslKey = c.getPassword(SSLKEY_CONFIG);
    sslPassword = c.getPassword(SSLPASSWORD_CONFIG);
    slot = c.getString(SLOT_CONFIG);
    slotFailover = c.getBoolean(SLOT_FAILOVER_CONFIG);
    publication = c.getString(PUBLICATION_CONFIG);
    publicationTables = List.copyOf(c.getList(PUBLICATION_TABLES_CONFIG));
    requirePrimaryKey = "primary-key".equals(c.getString(REPLICA_IDENTITY_CONFIG));
    resyncAuto = c.getBoolean(RESYNC_AUTO_CONFIG);
    resyncCheckIntervalMs = c.getLong(RESYNC_CHECK_INTERVAL_CONFIG);
    heartbeatIntervalMs = c.getLong(HEARTBEAT_INTERVAL_CONFIG);
    retryTimeoutMs = c.getLong(RETRY_TIMEOUT_CONFIG);
    retryBackoffMaxMs = c.getLong(RETRY_BACKOFF_MAX_CONFIG);
    topic = c.getString(TOPIC_CONFIG);
    createTopics = c.getBoolean(TOPIC_CREATE_CONFIG);
    topicReplicationFactor = c.getShort(TOPIC_REPLICATION_FACTOR_CONFIG);
    String hb = c.getString(HEARTBEAT_TOPIC_CONFIG);
    heartbeatTopic = hb.isEmpty() ? topic + ".heartbeat" : hb;
    String history = c.getString(SCHEMA_HISTORY_TOPIC_CONFIG);
    schemaHistoryTopic = history.isEmpty() ? topic + ".schemas" : history;
    ddlDetection = c.getString(DDL_DETECTION_CONFIG);
    schemaCheckIntervalMs = c.getLong(SCHEMA_CHECK_INTERVAL_CONFIG);
    kafkaBootstrapServers = c.getString(KAFKA_BOOTSTRAP_CONFIG);
    commitIntervalMs = c.getLong(COMMIT_INTERVAL_CONFIG);
    splitRecords = c.getLong(SPLIT_RECORDS_CONFIG);
    splitBytes = c.getLong(SPLIT_BYTES_CONFIG);
    backfillBatchRows = c.getInt(BACKFILL_BATCH_ROWS_CONFIG);
    backfillTransactionBatches = c.getInt(BACKFILL_TRANSACTION_BATCHES_CONFIG);
    backfillMaxRowsPerSecond = c.getLong(BACKFILL_MAX_ROWS_PER_SECOND_CONFIG);
    verifyIntervalMs = c.getLong(VERIFY_INTERVAL_CONFIG);
    backfillLiveBudgetMs = c.getLong(BACKFILL_LIVE_BUDGET_CONFIG);
    kafkaClientProps = KafkaClientSettings.clientProps(props);
    Map<String, String> overrides = new HashMap<>();
    props.forEach((k, v) -> {
      if (k.startsWith(DEBEZIUM_PREFIX)) {
        overrides.put(k.substring(DEBEZIUM_PREFIX.length()), v);
      }
    });
    debeziumOverrides = Map.copyOf(overrides);
    connectorName = props.getOrDefault("name", "pg2lite-source");
    producerMaxRequestSize = producerMaxRequestSize(props.get(RecordLimit.PRODUCER_OVERRIDE));
  }

  private static int producerMaxRequestSize(String value) {
    if (value == null || value.isBlank()) {
      return RecordLimit.PRODUCER_DEFAULT;
    }
    try {
      int v = Integer.parseInt(value.trim());
      if (v >= RecordValues.MIN_LIMIT + 4096) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new org.apache.kafka.common.config.ConfigException(RecordLimit.PRODUCER_OVERRIDE, value,
        "must be a whole number of bytes of at least " + (RecordValues.MIN_LIMIT + 4096));
  }

  /**
   * The URL of every JDBC connection of the source: all servers of {@link #hosts}, tried in order.
   * With a list, the connection properties also ask for a primary
   * ({@link io.pg2lite.source.postgres.PostgresConnections#driverProperties}).
   */
  public String jdbcUrl() {
    return "jdbc:postgresql://" + hosts.urlPart() + "/" + database + "?sslmode=" + sslMode
        + "&ApplicationName=pg2lite";
  }

  /** Replication slot names: lower-case letters, digits and underscores, at most 63 characters. */
  static final class SlotNameValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      String s = (String) value;
      if (s == null || !s.matches("[a-z0-9_]{1,63}")) {
        throw new org.apache.kafka.common.config.ConfigException(name, value,
            "a slot name is 1 to 63 lower-case letters, digits or underscores");
      }
    }

    @Override
    public String toString() {
      return "[a-z0-9_]{1,63}";
    }
  }
}
