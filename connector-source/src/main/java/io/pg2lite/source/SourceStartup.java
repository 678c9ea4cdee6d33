package io.pg2lite.source;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.MessageKind;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.kafka.ChangeLogTopic;
import io.pg2lite.source.postgres.CatalogInstaller;
import io.pg2lite.source.postgres.PostgresCatalog;
import io.pg2lite.source.schema.ProtocolSpecs;
import io.pg2lite.source.schema.PublishedSchema;
import io.pg2lite.source.schema.SchemaTracker;
import io.pg2lite.source.transaction.Emitted;
import io.pg2lite.source.transaction.SourcePosition;
import io.pg2lite.source.transaction.TransactionAssembler;
import java.sql.Connection;
import java.sql.DriverManager;
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
 * Everything the source does before streaming, in order: install the catalog objects, make sure
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
   */
  record State(SourcePosition position, SchemaTracker schema, List<Emitted> pending, Watermark lastWritten) {}

  private final SourceConfig config;
  private final ProtocolSpecs specs;

  SourceStartup(SourceConfig config) {
    this.config = config;
    this.specs = new ProtocolSpecs(!config.requirePrimaryKey);
  }

  State prepare(SourcePosition stored, ChangeLogTopic topic) {
    try (Connection c = DriverManager.getConnection(config.jdbcUrl(), config.user, config.password.value())) {
      CatalogInstaller.ensureInstalled(c);
      CatalogInstaller.registerPublication(c, config.publication);
      PostgresCatalog catalog = new PostgresCatalog(c);
      ensurePublication(catalog);
      PublishedSchema schema = ensureKeys(catalog, catalog.publishedSchema(config.publication));
      List<Emitted> pending = new ArrayList<>();
      SourcePosition position = stored == null ? firstStart(catalog, schema, pending) : resume(catalog, stored);
      Optional<ChangeLogEntry> last = topic.lastEntry(config.topic);
      if (last.isPresent() && isInsideTransaction(last.get())) {
        LOG.warn("Change log {} ends inside the transaction at {} (pos {}): writing a rollback first", config.topic,
            last.get().watermark(), last.get().pos());
        pending.add(0, TransactionAssembler.rollback(last.get(), position));
      }
      Watermark lastWritten = position.lastCommit();
      if (last.isPresent() && last.get().watermark().isAfter(lastWritten)) {
        lastWritten = last.get().watermark();
      }
      return new State(position, new SchemaTracker(schema, specs), pending, lastWritten);
    } catch (SQLException e) {
      throw new ConnectException("cannot prepare Postgres " + config.host + ":" + config.port + "/" + config.database
          + " for replication: " + e.getMessage(), e);
    }
  }

  private static boolean isInsideTransaction(ChangeLogEntry e) {
    return e.kind() == MessageKind.BEGIN || e.kind() == MessageKind.DATA;
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
  private PublishedSchema ensureKeys(PostgresCatalog catalog, PublishedSchema schema) throws SQLException {
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
    return changed ? catalog.publishedSchema(config.publication) : schema;
  }

  /**
   * First start: the slot's consistent point becomes the replica version, and one transaction
   * creates every published table (all columns to be backfilled) and its indexes. It is not in
   * the WAL, so like a backfill transaction it gets the minor watermark {@code replicaVersion.1}.
   */
  private SourcePosition firstStart(PostgresCatalog catalog, PublishedSchema schema, List<Emitted> pending)
      throws SQLException {
    PostgresCatalog.SlotState slot = catalog.slot(config.slot);
    Lsn consistentPoint;
    if (slot == null) {
      consistentPoint = catalog.createSlot(config.slot);
      LOG.info("Created replication slot {} at {}", config.slot, consistentPoint);
    } else {
      consistentPoint = slot.confirmedFlush();
      LOG.info("Using existing replication slot {} from {} for a new change log", config.slot, consistentPoint);
    }
    Watermark replicaVersion = Watermark.fromLsn(consistentPoint);
    Watermark tx = replicaVersion.nextMinor();
    SourcePosition position = new SourcePosition(replicaVersion, tx, null);
    List<ChangeLogEntry> entries = new ArrayList<>();
    entries.add(new ChangeLogEntry(tx, 0, new Begin(null, null, false)));
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
      pending.add(new Emitted(entries.get(i), position, i == entries.size() - 1));
    }
    return position;
  }

  /** Restart: the slot must still exist and must not be ahead of what we stored (a recreated slot is). */
  private SourcePosition resume(PostgresCatalog catalog, SourcePosition stored) throws SQLException {
    PostgresCatalog.SlotState slot = catalog.slot(config.slot);
    if (slot == null) {
      throw new ConnectException("replication slot " + config.slot + " is missing, but this connector streamed from "
          + "it (replica version " + stored.replicaVersion() + ", last commit " + stored.lastCommit() + "). Changes "
          + "since then are lost to this change log. Resync: delete the connector's offsets (or rename the "
          + "connector) and its topic, and rebuild the replicas.");
    }
    Object stamped = stored.upstream() == null ? null : stored.upstream().get("lsn_commit");
    if (stamped != null && slot.confirmedFlush() != null
        && Long.compareUnsigned(slot.confirmedFlush().value(), ((Number) stamped).longValue()) > 0) {
      throw new ConnectException("replication slot " + config.slot + " has confirmed " + slot.confirmedFlush()
          + ", beyond the last position this connector stored (" + new Lsn(((Number) stamped).longValue())
          + "): the slot was dropped and recreated, so changes in between are lost to this change log (replica "
          + "version " + stored.replicaVersion() + "). Resync: delete the connector's offsets and topic, and "
          + "rebuild the replicas.");
    }
    return stored;
  }
}
