package io.pg2lite.backfill.postgres;

import io.pg2lite.backfill.state.BackfillRequest;
import io.pg2lite.backfill.verify.TableSnapshot;
import io.pg2lite.backfill.verify.VerifySource;
import io.pg2lite.backfill.verify.VerifyTable;
import io.pg2lite.protocol.schema.BackfillId;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Snapshots for verifications: one per table, taken as a backfill's are (a temporary slot's
 * exported snapshot, so its LSN is exact), and never shared: it stays open until the table's
 * message is written, and a snapshot per table keeps each table's lock only that long.
 */
public final class PostgresVerifySource implements VerifySource {
  private final PostgresConnector postgres;
  private final String slotPrefix;
  private final int fetchRows;

  public PostgresVerifySource(PostgresConnector postgres, String slotPrefix, int fetchRows) {
    this.postgres = postgres;
    this.slotPrefix = slotPrefix;
    this.fetchRows = fetchRows;
  }

  @Override
  public TableSnapshot open(VerifyTable table) throws SQLException {
    // A clock that never ages it: the snapshot must outlive its scan (SharedSnapshot ends old ones).
    SharedSnapshot snapshot = PostgresTableCopySource.take(postgres, slotPrefix + "_vf_", () -> 0L);
    try {
      Map<String, BackfillId> columns = new LinkedHashMap<>();
      table.columns().forEach((name, spec) -> columns.put(name, new BackfillId(spec.pos())));
      BackfillRequest request = new BackfillRequest(table.name(), table.metadata(), columns);
      return new PostgresTableSnapshot(snapshot, table, request, SnapshotSchema.validate(snapshot.connection(), request),
          fetchRows);
    } catch (SQLException | RuntimeException e) {
      snapshot.end();
      throw e;
    }
  }
}
