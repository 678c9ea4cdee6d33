package io.pg2lite.source;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.NewLineage;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.kafka.ChangeLogTopic;
import io.pg2lite.source.kafka.RecordLimit;
import io.pg2lite.source.kafka.LogTail;
import io.pg2lite.connect.failure.Healing;
import io.pg2lite.source.kafka.SchemaHistory;
import io.pg2lite.source.lineage.LineageCheck;
import io.pg2lite.source.postgres.CatalogChecker;
import io.pg2lite.source.postgres.CatalogReader;
import io.pg2lite.source.replication.UpstreamPositions;
import io.pg2lite.source.postgres.CreatedSlot;
import io.pg2lite.source.postgres.FailoverSlot;
import io.pg2lite.source.postgres.ServerRequirements;
import io.pg2lite.source.postgres.PostgresCatalog;
import io.pg2lite.source.postgres.PostgresConnections;
import io.pg2lite.source.schema.DdlDetection;
import io.pg2lite.source.schema.ProtocolSpecs;
import io.pg2lite.source.schema.RecordedSchema;
import io.pg2lite.source.schema.PublishedSchema;
import io.pg2lite.source.schema.SchemaTracker;
import io.pg2lite.source.transaction.Emitted;
import io.pg2lite.source.transaction.SourcePartition;
import io.pg2lite.source.transaction.SourcePosition;
import io.pg2lite.source.transaction.TransactionAssembler;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the source does before streaming, in order: choose how schema changes are detected
 * (installing the catalog objects where the role may: {@link SchemaStartup}), make sure
 * the publication exists and its tables have keys, establish the lineage (create the slot on
 * first start, or check that the slot we resumed from is still ours), and compute the records to
 * write before any upstream change: the initial schema transaction on first start, a rollback
 * when the log ends inside a transaction.
 */
final class SourceStartup {
  private static final Logger LOG = LoggerFactory.getLogger(SourceStartup.class);

  /**
   * What streaming starts from.
   *
   * @param lastWritten the highest watermark in the change log: the stored position's, or the
   *     log's last entry's when that is higher (backfill transactions after the last commit with an
   *     upstream position, or an at-least-once restart that will re-send transactions)
   * @param backfillHold when the log ends in a cut live transaction, its pre-commit watermark:
   *     backfill transactions wait until a commit at or above it is written (see
   *     {@link LogTail#cutLiveTransaction()}); otherwise null
   * @param nextSeq the sequence number of the first record this run writes: the log's last
   *     committed record's + 1 ({@link LogTail#nextSeq()})
   * @param recordLimit how large a record may be on the way to the topic: larger entries are cut
   *     into parts
   * @param newLineage why this start began a new lineage ({@code resync.auto}), or null
   */
  record State(SourcePosition position, SchemaTracker schema, List<Emitted> pending, Watermark lastWritten,
      Watermark backfillHold, long nextSeq, RecordLimit recordLimit, SchemaHistory history,
      CatalogResources catalog, String newLineage) {}

  /**
   * What replication-stream mode keeps open while the task runs: the catalog reader the tracker
   * asks and the checker that writes catalog checks (both null with event triggers).
   */
  record CatalogResources(CatalogReader reader, CatalogChecker checker) implements AutoCloseable {
    static final CatalogResources NONE = new CatalogResources(null, null);

    /** When the last catalog check was written (epoch ms); -1 with event triggers. */
    long lastCheck() {
      return checker == null ? -1 : checker.lastCompletedAt();
    }

    @Override
    public void close() {
      if (checker != null) {
        checker.close();
      }
      if (reader != null) {
        reader.close();
      }
    }
  }

  private final SourceConfig config;
  private final PostgresConnections postgres;
  private final UpstreamPositions positions;
  private final ProtocolSpecs specs;

  /**
   * @param postgres opens the connection the start-up works on
   * @param positions reads the LSN out of a stored upstream position (the replication stream's format)
   */
  SourceStartup(SourceConfig config, PostgresConnections postgres, UpstreamPositions positions) {
    this.config = config;
    this.postgres = postgres;
    this.positions = positions;
    this.specs = new ProtocolSpecs(!config.requirePrimaryKey);
  }

  /**
   * @param forcedNewLineage why a new lineage must start although the lineage could go on (a
   *     replica stranded on it, {@code resync.auto}); null when nothing forces one
   */
  State prepare(SourcePosition stored, ChangeLogTopic topic, String forcedNewLineage) {
    SchemaStartup schemas = new SchemaStartup(config);
    CatalogReader reader = null;
    try (Connection c = postgres.connect()) {
      ServerRequirements.Facts server = ServerRequirements.require(c);
      DdlDetection detection = schemas.chooseDetection(c);
      PostgresCatalog catalog = new PostgresCatalog(c);
      ensurePublication(catalog);
      PublishedSchema now = ensureKeys(catalog, schemas.current(catalog, detection), detection, schemas);
      catalog.partitionedTables(config.publication).forEach(line -> LOG.info("Published table {}", line));
      Optional<LogTail> tail = topic.tail(config.topic);
      RecordLimit limit = new RecordLimit(topic.maxMessageBytes(config.topic), config.producerMaxRequestSize);
      limit.disagreement(config.topic).ifPresent(LOG::warn);
      SchemaHistory history = new SchemaHistory(config.schemaHistoryTopic, config.database + "/" + config.slot,
          new SourcePartition(config.database, config.slot).map(), limit.valueLimit());
      List<Emitted> pending = new ArrayList<>();
      LineageCheck.Decision lineage = new LineageCheck(config.slot, config.topic, config.resyncAuto,
          catalog::whereSlotsLive).decide(stored,
          catalog.slot(config.slot), stored == null ? null : positions.resumeLsn(stored.upstream()), tail,
          tail.isPresent() ? -1 : topic.startOffset(config.topic), forcedNewLineage);
      boolean continues = lineage instanceof LineageCheck.Decision.Continue;
      NewSlot slot = continues ? null : establishSlot(catalog, lineage, schemas, detection,
          FailoverSlot.wanted(config, server));
      FailoverSlot.settle(config, server, catalog, postgres::connect);
      if (slot != null && slot.schema() != null) {
        now = slot.schema();
      }
      SchemaStartup.Resumed resumed = continues ? schemas.resume(catalog, stored, topic, history, now) : null;
      boolean switchToTriggers = false;
      if (detection == DdlDetection.EVENT_TRIGGERS && resumed != null
          && resumed.schema().detection() == DdlDetection.REPLICATION_STREAM) {
        LOG.info("Publication {}: resuming from the replication stream, as its schema was tracked, until the event "
            + "triggers report their first DDL: the stream replayed from {} may hold DDL made without them",
            config.publication, stored.lastCommit());
        detection = DdlDetection.REPLICATION_STREAM;
        switchToTriggers = true;
      }
      if (detection == DdlDetection.REPLICATION_STREAM) {
        reader = new CatalogReader(postgres::connect, config.publication, Healing.forRetries("The catalog reads of "
            + "publication " + config.publication, config.retryBackoffMaxMs, config.retryTimeoutMs,
            SourceConfig.RETRY_TIMEOUT_CONFIG, LOG));
      }
      // The tracker admits the schema (NameAdmission): the first start creates the admitted tables only.
      SchemaTracker tracker = new SchemaTracker(resumed == null ? now : resumed.schema().schema(),
          resumed == null ? Map.of() : resumed.schema().describedBy(),
          resumed == null ? Map.of() : resumed.schema().membership(), specs, detection, reader);
      if (switchToTriggers) {
        tracker.switchToEventTriggersWhenTheyReport();
      }
      SourcePosition position;
      if (continues) {
        position = stored;
        if (resumed.recordAgain()) {
          pending.add(Emitted.schema(resumed.schema(), position));
        }
      } else {
        position = firstStart(tracker, slot, pending);
      }
      if (tail.isPresent() && tail.get().insideTransaction()) {
        ChangeLogEntry open = tail.get().entry();
        LOG.info("Change log {} ends inside the transaction at {} (pos {}): writing a rollback first", config.topic,
            open.watermark(), open.pos());
        pending.add(0, TransactionAssembler.rollback(open, position));
      }
      Watermark lastWritten = position.lastCommit();
      if (tail.isPresent() && tail.get().entry().watermark().isAfter(lastWritten)) {
        lastWritten = tail.get().entry().watermark();
      }
      Watermark backfillHold = tail.map(LogTail::cutLiveTransaction).orElse(null);
      long nextSeq = tail.isPresent() ? tail.get().nextSeq() : topic.startOffset(config.topic);
      CatalogResources resources = CatalogResources.NONE;
      if (reader != null) {
        CatalogChecker checker = CatalogChecker.start(postgres::connect, config.publication, config.slot,
            config.schemaCheckIntervalMs);
        reader.checkAgainWith(checker::requestCheck);
        resources = new CatalogResources(reader, checker);
      }
      return new State(position, tracker, pending, lastWritten, backfillHold, nextSeq, limit, history, resources,
          lineage instanceof LineageCheck.Decision.NewLineage n ? n.reason() : null);
    } catch (SQLException e) {
      closeQuietly(reader);
      throw new ConnectException("cannot prepare Postgres " + config.hosts + "/" + config.database
          + " for replication: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      closeQuietly(reader);
      throw e;
    }
  }

  private static void closeQuietly(CatalogReader reader) {
    if (reader != null) {
      reader.close();
    }
  }

  private void ensurePublication(PostgresCatalog catalog) throws SQLException {
    if (catalog.publicationExists(config.publication)) {
      return;
    }
    if (config.publicationTables.isEmpty()) {
      throw new ConnectException("publication " + config.publication + " does not exist; create it, or list its "
          + "tables in " + SourceConfig.PUBLICATION_TABLES_CONFIG + " for the connector to create it");
    }
    catalog.createPublication(config.publication, config.publicationTables);
  }

  /**
   * Every published table needs a row key. Under the unique-index policy a table without a
   * primary key uses a unique NOT NULL index, made its REPLICA IDENTITY so deletes carry it.
   */
  private PublishedSchema ensureKeys(PostgresCatalog catalog, PublishedSchema schema, DdlDetection detection,
      SchemaStartup schemas) throws SQLException {
    return useUniqueIndexesAsKeys(catalog, schema) ? schemas.current(catalog, detection) : schema;
  }

  /**
   * Makes each published table without a primary key use its key index as replica identity (so
   * updates and deletes carry the key); fails naming a table that has no key at all. True when a
   * table was altered.
   */
  private boolean useUniqueIndexesAsKeys(PostgresCatalog catalog, PublishedSchema schema) throws SQLException {
    boolean changed = false;
    for (PublishedSchema.Table t : schema.tables()) {
      PublishedSchema.Index key = t.keyIndex(!config.requirePrimaryKey);
      if (key == null) {
        throw new ConnectException("published table " + t.schema() + "." + t.name() + " has no primary key"
            + (config.requirePrimaryKey ? "" : " and no unique index over NOT NULL columns")
            + ": its rows cannot be identified on the replica");
      }
      if (!key.primary() && "d".equals(t.replicaIdentity())) {
        catalog.useIndexAsReplicaIdentity(t.schema(), t.name(), key.name());
        changed = true;
      }
    }
    return changed;
  }

  /**
   * The slot a first start or a new lineage begins from.
   *
   * @param schema when this start created the slot, the published schema as at its consistent
   *     point; null when it adopted one (the schema read before stands: nothing can have been
   *     streamed from a slot that confirmed nothing)
   * @param mark the new lineage's mark for the first begin, or null on a first start
   */
  private record NewSlot(Lsn consistentPoint, PublishedSchema schema, NewLineage mark) {}

  /**
   * How often a slot is created again because the publication's membership changed while its
   * schema was read (see {@link #establishSlot}); after that the last read stands, with a warning.
   */
  static final int SLOT_ATTEMPTS = 5;

  /**
   * Adopts the slot {@link LineageCheck} chose, or creates it (dropping an old one first) and
   * reads the published schema as at its consistent point, where the stream begins: a DDL
   * committed before it is then in the schema and not in the stream, one committed after it only
   * in the stream ({@link CreatedSlot}). Keys that read finds unset are set on the live
   * connection; with event triggers the stream reports that too.
   *
   * <p>The snapshot does not hold the publication's membership, which Postgres reads as of now
   * whatever the transaction's snapshot: when the publication's catalog rows (or, for a
   * publication of all tables or of schemas, the set of tables) differ between the snapshot and
   * now, a membership DDL committed during the read, and the slot is created again.
   */
  private NewSlot establishSlot(PostgresCatalog catalog, LineageCheck.Decision lineage, SchemaStartup schemas,
      DdlDetection detection, boolean failover) throws SQLException {
    if (lineage instanceof LineageCheck.Decision.FirstStart f && f.adoptFrom() != null) {
      LOG.info("Using existing replication slot {} from {}: it has confirmed nothing yet, and topic {} is empty or "
          + "ends in its lineage", config.slot, f.adoptFrom(), config.topic);
      return new NewSlot(f.adoptFrom(), null, null);
    }
    boolean drop = lineage instanceof LineageCheck.Decision.FirstStart f ? f.dropFirst()
        : ((LineageCheck.Decision.NewLineage) lineage).dropSlot();
    if (drop && catalog.slot(config.slot) != null) {
      catalog.dropSlot(config.slot);
      LOG.info("Dropped replication slot {}", config.slot);
    }
    Lsn consistentPoint;
    PublishedSchema schema;
    for (int attempt = 1; ; attempt++) {
      try (CreatedSlot created = CreatedSlot.create(postgres::connect, config.slot, failover)) {
        consistentPoint = created.consistentPoint();
        PostgresCatalog atConsistentPoint = new PostgresCatalog(created.snapshot());
        schema = schemas.current(atConsistentPoint, detection);
        String membershipThen = atConsistentPoint.membershipFingerprint(config.publication);
        String membershipNow = catalog.membershipFingerprint(config.publication);
        if (membershipThen.equals(membershipNow) || attempt == SLOT_ATTEMPTS) {
          if (!membershipThen.equals(membershipNow)) {
            LOG.warn("Publication {} changed its tables while replication slot {} was created, {} times in a row: "
                + "going on with the last schema read; a table added or removed in those milliseconds may be "
                + "reported twice", config.publication, config.slot, attempt);
          }
          break;
        }
      }
      LOG.info("Publication {} changed its tables while replication slot {} was created at {}: creating it again, "
          + "so that the first schema is exactly the one where the stream begins", config.publication, config.slot,
          consistentPoint);
      catalog.dropSlot(config.slot);
    }
    useUniqueIndexesAsKeys(catalog, schema);
    LOG.info("Created replication slot {} at {}", config.slot, consistentPoint);
    NewLineage mark = null;
    if (lineage instanceof LineageCheck.Decision.NewLineage n) {
      mark = new NewLineage(n.previous().toString(), n.reason());
      LOG.warn("Starting a new lineage (replica version {}, replacing {}) in change log {}, as resync.auto allows: "
          + "{}. Every published table is copied again; the sinks build their new replicas beside the old ones.",
          Watermark.fromLsn(consistentPoint), n.previous(), config.topic, n.reason());
    }
    return new NewSlot(consistentPoint, schema, mark);
  }

  /**
   * First start, or the start of a new lineage: the slot's consistent point becomes the replica
   * version, and one transaction creates every published table (all columns to be backfilled) and
   * its indexes. It is not in the WAL, so like a backfill transaction it gets the minor watermark
   * {@code replicaVersion.01}. A new lineage's begin says which lineage it replaces and why; its
   * slot is new, so its consistent point is above every watermark the old lineage wrote, and the
   * transaction begins above the log's last commit.
   *
   * <p>Which slot, and whether a first start is safe at all, {@link LineageCheck} decided;
   * {@link #establishSlot} made or adopted it, and the schema was read as at its consistent point.
   */
  private SourcePosition firstStart(SchemaTracker tracker, NewSlot slot, List<Emitted> pending) {
    PublishedSchema schema = tracker.current();
    Lsn consistentPoint = slot.consistentPoint();
    NewLineage mark = slot.mark();
    Watermark replicaVersion = Watermark.fromLsn(consistentPoint);
    Watermark tx = replicaVersion.nextMinor();
    SourcePosition position = new SourcePosition(replicaVersion, tx, null);
    List<ChangeLogEntry> entries = new ArrayList<>();
    entries.add(new ChangeLogEntry(tx, 0, new Begin(null, null, false, mark)));
    for (PublishedSchema.Table t : schema.tables()) {
      Map<String, BackfillId> backfill = new LinkedHashMap<>();
      t.columns().forEach(col -> backfill.put(col.name(), new BackfillId(col.pos())));
      entries.add(new ChangeLogEntry(tx, entries.size(), new SchemaChange.CreateTable(specs.tableSpec(t),
          specs.metadata(t), backfill)));
    }
    for (PublishedSchema.Table t : schema.tables()) {
      for (IndexSpec i : specs.indexSpecs(t)) {
        entries.add(new ChangeLogEntry(tx, entries.size(), new SchemaChange.CreateIndex(i)));
      }
    }
    entries.add(new ChangeLogEntry(tx, entries.size(), new Commit(entries.size() - 1, null)));
    for (int i = 0; i < entries.size(); i++) {
      if (i == entries.size() - 1) {
        // A restart right after this transaction resumes with this schema, not the catalog's of then.
        pending.add(Emitted.schema(new RecordedSchema(tx, replicaVersion, schema, tracker.describedBy(),
            tracker.membership(), tracker.detection()), position));
      }
      pending.add(new Emitted(entries.get(i), position, i == entries.size() - 1));
    }
    return position;
  }

}
